#pragma once
/// \file
/// The real file system behind `RunDisk`: POSIX calls (open/writev/fsync/rename for atomic writes,
/// open/write/close for plain writes, opendir/readdir for listings, stat for tests of existence;
/// appended files are written one whole record per write).

#include "attractor/run/run_disk.h"

namespace attractor {

class PosixRunDisk : public RunDisk {
 public:
  /// One mkdir when the parent exists, std::filesystem::create_directories otherwise.
  std::error_code make_directories(const std::string& path) override;
  std::error_code make_directories(const std::string& path, bool& created) override;
  void write_file(const std::string& path, std::string_view content) override;
  void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                         const std::function<void()>& written = nullptr,
                         DirectorySync sync = DirectorySync::kNow) override;
  /// A stdio stream opened with mode "a" (fwrite + fflush per append).
  void append_synced(const std::string& path, std::string_view data) override;
  /// Keeps the file open from its first append: later appends are one write and one fdatasync.
  std::unique_ptr<SyncedAppendFile> open_synced_append(const std::string& path) override;
  /// O_APPEND; a record whose write fails part-way is truncated away again.
  std::shared_ptr<AppendFile> open_append(const std::string& path) override;
  /// Reads only the tail (backwards to the last newline) and truncates in place.
  std::string cut_torn_tail(const std::string& path) override;
  void remove_file(const std::string& path) override;
  void reserve_file(const std::string& path, std::size_t bytes) override;
  std::string read_file(const std::string& path) override;
  bool exists(const std::string& path) override;
  bool is_directory(const std::string& path) override;
  std::vector<std::string> list_directory(const std::string& path) override;
  void rename(const std::string& from, const std::string& to) override;
};

/// The process's real file system (the default disk of the engine, the writer and the helpers).
RunDisk& posix_run_disk();

}  // namespace attractor
