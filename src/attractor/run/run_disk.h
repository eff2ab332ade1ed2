#pragma once
/// \file
/// The file operations a run directory is written and read with (docs/run-directory.md, section
/// 3). Everything that touches a run directory (the engine, `WriteBehind`, `CheckpointWriter`, the
/// manifest and checkpoint helpers, `ArtifactStore`) goes through one `RunDisk`, so tests can run a
/// pipeline in memory (`MemoryRunDisk` in tests/support) or make a chosen write fail or stop the process, while
/// production code only ever uses the real file system (`posix_run_disk()`).
///
/// Implementations must be thread-safe: the run's writer thread and the engine thread (and the
/// threads of parallel branches) call them concurrently.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace attractor {

/// A file opened for appending (the run's `events.jsonl`, `run.log`), kept open between appends.
/// Each append is one whole record (one or more whole lines): it reaches the file whole or not at
/// all, so a full disk leaves no torn line behind (a crash in the middle of a write can; the next
/// writer cuts it off with RunDisk::cut_torn_tail).
class AppendFile {
 public:
  virtual ~AppendFile() = default;
  /// Appends `data` and flushes it to the kernel; a write that fails part-way is undone. Errors
  /// are ignored (events never stop a run).
  virtual void append(std::string_view data) = 0;
};

/// Whether `RunDisk::write_file_atomic` syncs the file's directory after the rename.
enum class DirectorySync {
  kNow,    ///< the new name is durable when the call returns
  kLater,  ///< the caller relies on a later sync of the same directory (docs/run-directory.md §4)
};

/// A file appended to durably, record by record (the checkpoint journal), kept open between
/// records where the disk can: each append is RunDisk::append_synced's write, fdatasync and, for a
/// new file, directory sync. Used by one thread at a time.
class SyncedAppendFile {
 public:
  virtual ~SyncedAppendFile() = default;
  /// Appends `data` and makes it durable; throws like RunDisk::append_synced.
  virtual void append(std::string_view data) = 0;
};

/// `PATH.torn-OFFSET`: where RunDisk::cut_torn_tail keeps the torn record it cut off at OFFSET.
std::string torn_tail_path(const std::string& path, std::uint64_t offset);

class RunDisk {
 public:
  virtual ~RunDisk() = default;

  /// Creates `path` and its missing parents; an existing directory is not an error. Returns the
  /// error, if any (callers name the directory in their own message).
  virtual std::error_code make_directories(const std::string& path) = 0;
  /// The same, and tells whether `path` itself was made (`created` false: it was a directory
  /// already). The default asks `exists` first; a disk that learns it from the creation overrides.
  virtual std::error_code make_directories(const std::string& path, bool& created) {
    created = !exists(path);
    return make_directories(path);
  }
  /// Writes a whole file in place (not atomic). Throws std::runtime_error
  /// "cannot write PATH: REASON".
  virtual void write_file(const std::string& path, std::string_view content) = 0;
  /// Writes the concatenation of `parts` to `path` atomically: `path.tmp`, fsync, rename, fsync
  /// of the directory (unless `sync` is kLater); a failed write or sync removes the temp file.
  /// `written`, if set, is called once the parts are no longer needed (written, not yet synced).
  /// Throws std::runtime_error "cannot write|sync|rename PATH.tmp: REASON".
  virtual void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                                 const std::function<void()>& written = nullptr,
                                 DirectorySync sync = DirectorySync::kNow) = 0;
  /// Appends `data` to `path` (created when missing) and makes it durable before returning:
  /// write, fdatasync, and a sync of the directory when the file was new. Throws
  /// std::runtime_error "cannot append|sync PATH: REASON". The checkpoint journal's records.
  virtual void append_synced(const std::string& path, std::string_view data) = 0;
  /// `path` for a series of append_synced calls. Whoever holds it closes it (drops it) before the
  /// file is removed or replaced; truncating it in place is fine. The default forwards each
  /// append to append_synced; PosixRunDisk keeps the file open.
  virtual std::unique_ptr<SyncedAppendFile> open_synced_append(const std::string& path);
  /// Opens `path` for appending, creating it when missing; nullptr when it cannot be opened.
  virtual std::shared_ptr<AppendFile> open_append(const std::string& path) = 0;
  /// Makes a file of lines end with a whole line before it is appended to: when `path` holds
  /// bytes after its last newline (a record torn by a crash), they are written to
  /// `PATH.torn-OFFSET` (OFFSET: where they began) and cut off. Returns that file's path, or ""
  /// when `path` is missing, empty or ends with a newline. Throws std::runtime_error like
  /// write_file. The default reads and rewrites through this disk's own operations.
  virtual std::string cut_torn_tail(const std::string& path);
  /// Removes a file; a missing file is not an error, and neither is any other failure.
  virtual void remove_file(const std::string& path) = 0;
  /// Sets `bytes` of disk space aside as the file `path` (replacing it), without writing data
  /// where the file system can (PosixRunDisk: posix_fallocate). Throws std::runtime_error
  /// "cannot reserve PATH: REASON". The default writes `bytes` zeros with write_file.
  virtual void reserve_file(const std::string& path, std::size_t bytes);
  /// Reads a whole file. Throws std::runtime_error "cannot read PATH".
  virtual std::string read_file(const std::string& path) = 0;
  /// Whether `path` names a file or a directory.
  virtual bool exists(const std::string& path) = 0;
  /// Whether `path` names a directory.
  virtual bool is_directory(const std::string& path) = 0;
  /// The names of the files and directories directly inside `path`, sorted; empty when `path`
  /// is missing or not a directory.
  virtual std::vector<std::string> list_directory(const std::string& path) = 0;
  /// Renames the file or directory `from` to `to` (a file `to` is replaced). Throws
  /// std::runtime_error "cannot rename FROM to TO: REASON".
  virtual void rename(const std::string& from, const std::string& to) = 0;
};

/// Opens a file of lines for appending records (`events.jsonl`, `run.log`): first cuts off a torn
/// last line (RunDisk::cut_torn_tail, logged as a warning; a failure to cut is logged and the file
/// opened anyway), then RunDisk::open_append. nullptr when it cannot be opened.
std::shared_ptr<AppendFile> open_record_append(RunDisk& disk, const std::string& path);

}  // namespace attractor
