#include "attractor/run/run_disk.h"

namespace attractor {

namespace {

/// Each append goes through the disk's append_synced (a disk that keeps nothing open).
class ForwardingSyncedAppendFile : public SyncedAppendFile {
 public:
  ForwardingSyncedAppendFile(RunDisk& disk, std::string path) : disk_(disk), path_(std::move(path)) {}
  void append(std::string_view data) override { disk_.append_synced(path_, data); }

 private:
  RunDisk& disk_;
  const std::string path_;
};

}  // namespace

std::unique_ptr<SyncedAppendFile> RunDisk::open_synced_append(const std::string& path) {
  return std::make_unique<ForwardingSyncedAppendFile>(*this, path);
}

}  // namespace attractor
