#pragma once
/// \file
/// Where the coding agent's tools act (coding-agent-loop spec §4.1): files, commands and searches
/// behind one interface, so the tools are the same whether they run on this machine, in a
/// container or against an in-memory tree in tests. Paths are relative to `working_directory()`
/// and must stay inside it: an implementation refuses any path that leaves it (`..`, an absolute
/// path elsewhere, a symbolic link pointing out) with PathOutsideWorkspace.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attractor {

/// A tool-level failure the model is told about (spec Appendix B): the message names the path or
/// command and what went wrong.
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A path that would leave the working directory.
class PathOutsideWorkspace : public ToolError {
 public:
  using ToolError::ToolError;
};

/// A file or directory that does not exist.
class FileNotFound : public ToolError {
 public:
  using ToolError::ToolError;
};

struct ExecResult {
  std::string stdout_text;
  std::string stderr_text;
  int exit_code = -1;
  bool timed_out = false;
  std::int64_t duration_ms = 0;
};

struct DirEntry {
  std::string name;  ///< relative to the listed directory, '/'-separated
  bool is_dir = false;
  std::optional<std::uint64_t> size;
};

struct GrepOptions {
  bool case_insensitive = false;
  std::string glob_filter;  ///< only files whose name matches, e.g. "*.cc"
  std::size_t max_results = 100;
};

class ExecutionEnvironment {
 public:
  virtual ~ExecutionEnvironment() = default;

  /// The file's text; `offset` is the first line (1-based) and `limit` the number of lines.
  virtual std::string read_file(const std::string& path, std::optional<std::size_t> offset = std::nullopt,
                                std::optional<std::size_t> limit = std::nullopt) = 0;
  /// Creates or replaces the file, creating missing parent directories.
  virtual void write_file(const std::string& path, const std::string& content) = 0;
  /// Removes a file (not a directory).
  virtual void delete_file(const std::string& path) = 0;
  virtual bool file_exists(const std::string& path) = 0;
  /// Entries under `path` down to `depth` levels (1 = direct children), sorted by name.
  virtual std::vector<DirEntry> list_directory(const std::string& path, int depth) = 0;

  /// Runs `command` with the platform shell in `working_dir` (relative; "" = the root).
  virtual ExecResult exec_command(const std::string& command, std::int64_t timeout_ms,
                                  const std::string& working_dir = "",
                                  const std::map<std::string, std::string>& env = {}) = 0;

  /// Lines matching the regular expression `pattern` under `path`, as `file:line:text`.
  virtual std::string grep(const std::string& pattern, const std::string& path, const GrepOptions& options) = 0;
  /// Files under `path` matching the glob `pattern` (`*`, `?`, `**`), sorted.
  virtual std::vector<std::string> glob(const std::string& pattern, const std::string& path) = 0;

  virtual std::string working_directory() const = 0;
  virtual std::string platform() const = 0;
  virtual std::string os_version() const = 0;
};

}  // namespace attractor
