#pragma once
/// \file
/// A `RunDisk` held in memory, for tests: a whole run can be made without touching the file
/// system and its run directory compared with one written to disk. It follows the real disk where
/// a run can tell the difference: a file can only be written, appended to or renamed into a
/// directory that exists, with the real disk's message ("cannot write PATH: No such file or
/// directory"). Paths are compared after `lexically_normal`. The disk must outlive the files it
/// opens for appending.

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "attractor/run/run_disk.h"

namespace attractor {

class MemoryRunDisk : public RunDisk {
 public:
  using RunDisk::make_directories;
  std::error_code make_directories(const std::string& path) override;
  void write_file(const std::string& path, std::string_view content) override;
  void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                         const std::function<void()>& written = nullptr,
                         DirectorySync sync = DirectorySync::kNow) override;
  void append_synced(const std::string& path, std::string_view data) override;
  std::shared_ptr<AppendFile> open_append(const std::string& path) override;
  void remove_file(const std::string& path) override;
  std::string read_file(const std::string& path) override;
  bool exists(const std::string& path) override;
  bool is_directory(const std::string& path) override;
  std::vector<std::string> list_directory(const std::string& path) override;
  void rename(const std::string& from, const std::string& to) override;

  /// Every file (normalized path -> content).
  std::map<std::string, std::string> files() const;
  /// Every directory, the parents of those created included.
  std::set<std::string> directories() const;

 private:
  class Appender;

  /// Throws like the real disk when the parent directory of `path` (normalized) is missing.
  void require_parent_locked(const std::string& path, const std::string& shown) const;
  void append(const std::string& path, std::string_view data);

  mutable std::mutex mutex_;
  std::map<std::string, std::string> files_;
  std::set<std::string> directories_;
};

}  // namespace attractor
