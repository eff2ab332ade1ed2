#include "attractor/run/run_disk.h"

#include <cstdint>
#include <string>

#include "attractor/base/log.h"

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

std::string torn_tail_path(const std::string& path, std::uint64_t offset) {
  return path + ".torn-" + std::to_string(offset);
}

void RunDisk::reserve_file(const std::string& path, std::size_t bytes) { write_file(path, std::string(bytes, '\0')); }

std::string RunDisk::cut_torn_tail(const std::string& path) {
  if (!exists(path) || is_directory(path)) return "";
  const std::string text = read_file(path);
  if (text.empty() || text.back() == '\n') return "";
  const std::size_t newline = text.rfind('\n');
  const std::size_t keep = newline == std::string::npos ? 0 : newline + 1;
  std::string torn = torn_tail_path(path, keep);
  write_file(torn, std::string_view(text).substr(keep));
  write_file(path, std::string_view(text).substr(0, keep));
  return torn;
}

std::shared_ptr<AppendFile> open_record_append(RunDisk& disk, const std::string& path) {
  try {
    if (std::string torn = disk.cut_torn_tail(path); !torn.empty()) {
      log().warn("{}: its last line was torn (a crash or a full disk); cut off and kept in {}", path, torn);
    }
  } catch (const std::exception& e) {
    log().warn("{}: a torn last line could not be cut off: {}", path, e.what());
  }
  return disk.open_append(path);
}

std::unique_ptr<SyncedAppendFile> RunDisk::open_synced_append(const std::string& path) {
  return std::make_unique<ForwardingSyncedAppendFile>(*this, path);
}

}  // namespace attractor
