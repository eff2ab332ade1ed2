#include "support/checkpoint_hook_disk.h"

#include <filesystem>
#include <stdexcept>

namespace attractor::testing {

void CheckpointHookDisk::fail_if_chosen(const std::string& path) {
  if (fail_write_path.empty() || !path.ends_with("/" + fail_write_path)) return;
  if (++path_writes_ == fail_write) throw std::runtime_error("cannot write " + path + ": No space left on device");
}

void CheckpointHookDisk::write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                                           const std::function<void()>& written, DirectorySync sync) {
  fail_if_chosen(path);
  if (std::filesystem::path(path).filename() != "checkpoint.json") {
    inner_.write_file_atomic(path, parts, written, sync);
    if (after_write) after_write(path);
    return;
  }
  const std::int64_t n = ++checkpoints_;
  if (n == fail_checkpoint) throw std::runtime_error("cannot write " + path + ".tmp: No space left on device");
  inner_.write_file_atomic(path, parts, written, sync);
  if (after_checkpoint) after_checkpoint(n);
  if (after_write) after_write(path);
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

void CheckpointHookDisk::write_file(const std::string& path, std::string_view content) {
  fail_if_chosen(path);
  if (content.empty()) journal_emptying(path);
  inner_.write_file(path, content);
  if (after_write) after_write(path);
}

void CheckpointHookDisk::rename(const std::string& from, const std::string& to) {
  inner_.rename(from, to);
  if (after_write) after_write(to);
}

void CheckpointHookDisk::remove_file(const std::string& path) {
  journal_emptying(path);
  inner_.remove_file(path);
}

void CheckpointHookDisk::journal_emptying(const std::string& path) {
  if (std::filesystem::path(path).filename() != "checkpoint.journal" || !inner_.exists(path)) return;
  if (inner_.read_file(path).empty()) return;
  const std::int64_t n = ++journal_emptyings_;
  if (before_journal_emptied) before_journal_emptied(n);
}

}  // namespace attractor::testing
