#pragma once
/// \file
/// A RunDisk for crash and failure tests: it forwards every call to another disk (the real one
/// by default) and lets a test act at a checkpoint without any hook in production code.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_disk.h"

namespace attractor::testing {

/// Counts the atomic writes of files named `checkpoint.json` (1, 2, ...): `after_checkpoint(n)`
/// runs once the n-th is renamed into place and its directory synced (on the run's writer
/// thread, while the engine may already compute the next stage); the write numbered
/// `fail_checkpoint` throws instead, as a full disk would ("cannot write PATH.tmp: No space left
/// on device"), leaving the previous checkpoint in place. Likewise the `fail_write`-th write of a
/// file whose path ends with `/` + `fail_write_path` (a stage file such as `work/prompt.md`)
/// throws "cannot write PATH: No space left on device" without writing. Set them before the run.
class CheckpointHookDisk : public RunDisk {
 public:
  explicit CheckpointHookDisk(RunDisk& inner = posix_run_disk()) : inner_(inner) {}

  std::function<void(std::int64_t n)> after_checkpoint;
  std::int64_t fail_checkpoint = 0;  ///< 0: none fails
  std::string fail_write_path;       ///< "": no other write fails
  std::int64_t fail_write = 1;       ///< which write of `fail_write_path` fails (1: the first)
  /// Writes of `fail_write_path` attempted so far.
  std::int64_t path_writes() const { return path_writes_; }
  /// Called before `checkpoint.journal`, holding records, is emptied for the n-th time (1, 2, ...;
  /// truncated after a snapshot in the run, removed at its end): a compaction whose snapshot is
  /// already in place, with the journal it folded still on disk.
  std::function<void(std::int64_t n)> before_journal_emptied;
  /// Called with the path after every whole-file write (atomic or not) and after every rename
  /// (with its target): the rewind and fork crash tests kill the process there.
  std::function<void(const std::string& path)> after_write;
  /// Checkpoint writes attempted so far.
  std::int64_t checkpoints() const { return checkpoints_; }

  std::error_code make_directories(const std::string& path) override { return inner_.make_directories(path); }
  std::error_code make_directories(const std::string& path, bool& created) override {
    return inner_.make_directories(path, created);
  }
  void write_file(const std::string& path, std::string_view content) override;
  void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                         const std::function<void()>& written = nullptr,
                         DirectorySync sync = DirectorySync::kNow) override;
  void append_synced(const std::string& path, std::string_view data) override;
  std::shared_ptr<AppendFile> open_append(const std::string& path) override { return inner_.open_append(path); }
  void remove_file(const std::string& path) override;
  std::string read_file(const std::string& path) override { return inner_.read_file(path); }
  bool exists(const std::string& path) override { return inner_.exists(path); }
  bool is_directory(const std::string& path) override { return inner_.is_directory(path); }
  std::vector<std::string> list_directory(const std::string& path) override { return inner_.list_directory(path); }
  void rename(const std::string& from, const std::string& to) override;

 private:
  RunDisk& inner_;
  std::atomic<std::int64_t> checkpoints_{0};
  std::atomic<std::int64_t> path_writes_{0};
  /// Throws like a full disk when `path` is the fail_write-th write of fail_write_path.
  void fail_if_chosen(const std::string& path);
  /// Calls before_journal_emptied when `path` is the journal and holds records.
  void journal_emptying(const std::string& path);

  std::atomic<std::int64_t> journal_emptyings_{0};
};

}  // namespace attractor::testing
