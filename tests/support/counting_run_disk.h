#pragma once
/// \file
/// A RunDisk that forwards every call to another disk (the real one by default) and counts the
/// whole-file reads per path, so a test can show what a command reads back from a run directory.

#include <map>
#include <mutex>
#include <string>

#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_disk.h"

namespace attractor::testing {

class CountingRunDisk : public RunDisk {
 public:
  explicit CountingRunDisk(RunDisk& inner = posix_run_disk()) : inner_(inner) {}

  /// How many times `read_file` read `path` (as passed, after lexically_normal).
  int reads_of(const std::string& path) const;
  /// Every read so far, by path.
  std::map<std::string, int> reads() const;

  std::error_code make_directories(const std::string& path) override { return inner_.make_directories(path); }
  std::error_code make_directories(const std::string& path, bool& created) override {
    return inner_.make_directories(path, created);
  }
  void write_file(const std::string& path, std::string_view content) override { inner_.write_file(path, content); }
  void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                         const std::function<void()>& written = nullptr,
                         DirectorySync sync = DirectorySync::kNow) override {
    inner_.write_file_atomic(path, parts, written, sync);
  }
  void append_synced(const std::string& path, std::string_view data) override { inner_.append_synced(path, data); }
  std::unique_ptr<SyncedAppendFile> open_synced_append(const std::string& path) override {
    return inner_.open_synced_append(path);
  }
  std::shared_ptr<AppendFile> open_append(const std::string& path) override { return inner_.open_append(path); }
  /// Forwarded uncounted: the inner disk looks at the last line only, it does not read the record.
  std::string cut_torn_tail(const std::string& path) override { return inner_.cut_torn_tail(path); }
  void remove_file(const std::string& path) override { inner_.remove_file(path); }
  void reserve_file(const std::string& path, std::size_t bytes) override { inner_.reserve_file(path, bytes); }
  std::string read_file(const std::string& path) override;
  bool exists(const std::string& path) override { return inner_.exists(path); }
  bool is_directory(const std::string& path) override { return inner_.is_directory(path); }
  std::vector<std::string> list_directory(const std::string& path) override { return inner_.list_directory(path); }
  void rename(const std::string& from, const std::string& to) override { inner_.rename(from, to); }

 private:
  RunDisk& inner_;
  mutable std::mutex mutex_;
  std::map<std::string, int> reads_;
};

}  // namespace attractor::testing
