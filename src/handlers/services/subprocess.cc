#include "handlers/services/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "attractor/base/supervised_process.h"

extern char** environ;

namespace attractor {

namespace {

int open_output(const std::string& path) {
  if (path.empty()) return ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/// The environment of the command: this process's (unless spec says not to) with spec.env over it.
std::vector<std::string> environment_of(const ProcessSpec& spec) {
  std::vector<std::string> env_strings;
  for (char** e = environ; spec.inherit_env && *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : spec.env) {
      if (k == name) replaced = true;
    }
    if (!replaced) env_strings.push_back(std::move(entry));
  }
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  return env_strings;
}

}  // namespace

ProcessResult PosixProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  auto started = std::chrono::steady_clock::now();

  SpawnSpec spawn;
  spawn.program = "/bin/sh";
  spawn.argv = {"/bin/sh", "-c", spec.command};
  spawn.env = environment_of(spec);
  spawn.cwd = spec.cwd;
  spawn.on_started = spec.on_started;
  int out_fd = open_output(spec.stdout_path);
  int err_fd = open_output(spec.stderr_path);
  int in_fd = ::open(spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (out_fd < 0 || err_fd < 0 || in_fd < 0) {
    result.error = std::string("cannot open output files: ") + std::strerror(errno);
    for (int fd : {out_fd, err_fd, in_fd}) {
      if (fd >= 0) ::close(fd);
    }
    return result;
  }
  spawn.stdin_fd = in_fd;
  spawn.stdout_fd = out_fd;
  spawn.stderr_fd = err_fd;
  SupervisedProcess process;
  bool ok = process.start(spawn);
  ::close(out_fd);
  ::close(err_fd);
  ::close(in_fd);
  if (!ok) {
    result.error = process.error();
    return result;
  }

  auto deadline = spec.timeout_ms ? started + std::chrono::milliseconds(*spec.timeout_ms)
                                  : std::chrono::steady_clock::time_point::max();
  bool killing = false;
  std::chrono::steady_clock::time_point kill_at{};
  while (!process.wait_for(10)) {
    auto now = std::chrono::steady_clock::now();
    if (!killing && (now >= deadline || spec.cancel.cancelled())) {
      if (now >= deadline) result.timed_out = true;
      else result.cancelled = true;
      process.signal_group(SIGTERM);
      killing = true;
      kill_at = now + std::chrono::milliseconds(500);
    } else if (killing && now >= kill_at) {
      process.signal_group(SIGKILL);
      kill_at = std::chrono::steady_clock::time_point::max();
    }
  }
  if (process.failure() == SpawnFailure::kCwd || process.failure() == SpawnFailure::kExec) {
    result.error = process.error();
    result.cwd_missing = process.failure() == SpawnFailure::kCwd;
  }
  int status = process.wait_status();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  return result;
}

ProcessRunner& default_process_runner() {
  static PosixProcessRunner runner;
  return runner;
}

}  // namespace attractor
