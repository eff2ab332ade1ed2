#pragma once
/// \file
/// An ExecutionEnvironment over an in-memory map of path -> content, for the coding agent's tool
/// tests. Paths are '/'-separated and relative; "." components and repeated slashes are dropped.
/// An absolute path or one with a ".." component is PathOutsideWorkspace. Directories exist only
/// implicitly (as prefixes of file paths); commands, grep, glob and listings are not supported.
/// Header-only so that tests/support's library (which globs *.cc) needs no agent library.

#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "handlers/agent/execution_environment.h"

namespace attractor::testing {

class MemoryEnvironment : public ExecutionEnvironment {
 public:
  MemoryEnvironment() = default;
  /// Starts with `files` (path -> content), e.g. `MemoryEnvironment env({{"a.py", "x\n"}})`.
  MemoryEnvironment(std::initializer_list<std::pair<const std::string, std::string>> files) {
    for (const auto& [path, content] : files) files_[normalise(path)] = content;
  }

  /// Every file, keyed by normalised path.
  const std::map<std::string, std::string>& files() const { return files_; }
  /// Makes write_file and delete_file of `path` throw ToolError, to test failures mid-write.
  void fail_writes_to(const std::string& path) { failing_.insert(normalise(path)); }

  std::string read_file(const std::string& path, std::optional<std::size_t> offset = std::nullopt,
                        std::optional<std::size_t> limit = std::nullopt) override {
    const std::string& content = existing(path);
    if (!offset && !limit) return content;
    return slice_lines(content, offset.value_or(1), limit);
  }

  void write_file(const std::string& path, const std::string& content) override {
    std::string key = writable(path);
    files_[key] = content;
  }

  void delete_file(const std::string& path) override {
    existing(path);
    files_.erase(writable(path));
  }

  bool file_exists(const std::string& path) override { return files_.count(normalise(path)) > 0; }

  std::vector<DirEntry> list_directory(const std::string&, int) override { throw ToolError("not supported"); }
  ExecResult exec_command(const std::string&, std::int64_t, const std::string& = "",
                          const std::map<std::string, std::string>& = {}) override {
    throw ToolError("not supported");
  }
  std::string grep(const std::string&, const std::string&, const GrepOptions&) override {
    throw ToolError("not supported");
  }
  std::vector<std::string> glob(const std::string&, const std::string&) override { throw ToolError("not supported"); }

  std::string working_directory() const override { return "/workspace"; }
  std::string platform() const override { return "memory"; }
  std::string os_version() const override { return "in-memory test environment"; }

  /// `path` without "." components and empty segments; throws PathOutsideWorkspace for an
  /// absolute path or a ".." component.
  static std::string normalise(const std::string& path) {
    if (path.starts_with('/')) throw PathOutsideWorkspace("path outside the workspace: " + path);
    std::string out;
    std::stringstream segments(path);
    for (std::string segment; std::getline(segments, segment, '/');) {
      if (segment == "..") throw PathOutsideWorkspace("path outside the workspace: " + path);
      if (segment.empty() || segment == ".") continue;
      out += (out.empty() ? "" : "/") + segment;
    }
    return out;
  }

 private:
  const std::string& existing(const std::string& path) const {
    auto it = files_.find(normalise(path));
    if (it == files_.end()) throw FileNotFound("file not found: " + path);
    return it->second;
  }

  std::string writable(const std::string& path) const {
    std::string key = normalise(path);
    if (key.empty()) throw ToolError("not a file: " + path);
    if (failing_.count(key)) throw ToolError("write failed: " + path);
    return key;
  }

  static std::string slice_lines(const std::string& content, std::size_t offset, std::optional<std::size_t> limit) {
    std::string out;
    std::stringstream lines(content);
    std::size_t number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      if (number < offset) continue;
      if (limit && number >= offset + *limit) break;
      out += line + "\n";
    }
    return out;
  }

  std::map<std::string, std::string> files_;
  std::set<std::string> failing_;
};

}  // namespace attractor::testing
