#include "support/checkpoint_hook_disk.h"

#include <filesystem>
#include <stdexcept>

namespace attractor::testing {

void CheckpointHookDisk::write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                                           const std::function<void()>& written) {
  if (std::filesystem::path(path).filename() != "checkpoint.json") {
    inner_.write_file_atomic(path, parts, written);
    return;
  }
  const std::int64_t n = ++checkpoints_;
  if (n == fail_checkpoint) throw std::runtime_error("cannot write " + path + ".tmp: No space left on device");
  inner_.write_file_atomic(path, parts, written);
  if (after_checkpoint) after_checkpoint(n);
}

void CheckpointHookDisk::append_synced(const std::string& path, std::string_view data) {
  if (std::filesystem::path(path).filename() != "checkpoint.journal") {
    inner_.append_synced(path, data);
    return;
  }
  const std::int64_t n = ++checkpoints_;
  if (n == fail_checkpoint) throw std::runtime_error("cannot append " + path + ": No space left on device");
  inner_.append_synced(path, data);
  if (after_checkpoint) after_checkpoint(n);
}

void CheckpointHookDisk::remove_file(const std::string& path) {
  if (std::filesystem::path(path).filename() == "checkpoint.journal" && inner_.exists(path)) {
    const std::int64_t n = ++journal_removals_;
    if (before_journal_removal) before_journal_removal(n);
  }
  inner_.remove_file(path);
}

}  // namespace attractor::testing
