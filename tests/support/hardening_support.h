#pragma once
/// \file
/// Helpers of the hardening tests: run the built `attractor` binary as a real process (with extra
/// environment, a file-size limit, a time limit) and capture bounded output; temp directories;
/// whole-file reads for byte comparisons.

#include <sys/types.h>

#include <string>
#include <vector>

namespace attractor::hardening {

struct ProcessOptions {
  std::vector<std::string> env;     ///< extra NAME=VALUE entries
  long file_size_limit = -1;        ///< RLIMIT_FSIZE in bytes for the child (SIGXFSZ ignored), -1 = none
  int timeout_seconds = 120;        ///< the child is SIGKILLed after this long
  std::vector<std::string> prefix;  ///< run `prefix... attractor args...` (e.g. unshare)
};

struct ProcessResult {
  int exit_code = -1;  ///< -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out;            ///< first 64 MiB of stdout
  std::string err;            ///< first 64 MiB of stderr
  std::size_t err_bytes = 0;  ///< total bytes written to stderr
  long max_rss_kb = 0;        ///< the child's peak resident set (wait4), 0 when it timed out
};

/// Runs ATTRACTOR_BINARY_PATH with `args` in the repository root.
ProcessResult run_attractor(const std::vector<std::string>& args, const ProcessOptions& options = {});

/// Runs any program (argv[0] looked up in PATH) the same way.
ProcessResult run_program(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// Starts `program` (a path) with `args` in the background: stdin from /dev/null, stdout and
/// stderr to `log`, `env` entries (KEY=VALUE) added to the environment. Returns its pid.
pid_t spawn_program(const std::string& program, const std::vector<std::string>& args,
                    const std::vector<std::string>& env = {}, const std::string& log = "/dev/null");

/// A fresh temporary directory, removed with its contents when the object goes away.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string slurp(const std::string& path);
void spit(const std::string& path, const std::string& content);

/// The first line of `text`.
std::string first_line(const std::string& text);

}  // namespace attractor::hardening
