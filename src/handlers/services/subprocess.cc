#include "handlers/services/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "attractor/base/supervised_process.h"
#include "handlers/services/pids_cgroup.h"

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

/// The first 64 KiB of `path`.
std::string head_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(64 * 1024, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

/// Points `spawn` at `/bin/sh -c` under the sandbox of `spec`; the sentence saying why it cannot
/// when the sandbox cannot be set up. A root `strict` command gets a pids cgroup in `cgroup`.
std::optional<std::string> confine(const ProcessSpec& spec, SpawnSpec& spawn, std::unique_ptr<PidsCgroup>& cgroup) {
  if (spec.sandbox.level == SandboxLevel::kNone) {
    spawn.program = "/bin/sh";
    spawn.argv = {"/bin/sh", "-c", spec.command};
    return std::nullopt;
  }
  if (auto why = sandbox_unavailable(spec.sandbox)) return why;
  spawn.argv = sandbox_argv(spec.sandbox, spec.cwd, spec.command);
  spawn.program = spawn.argv.front();
  if (spec.sandbox.level != SandboxLevel::kStrict || spec.sandbox.limits.processes <= 0 || ::geteuid() != 0) {
    return std::nullopt;
  }
  cgroup = std::make_unique<PidsCgroup>();
  if (!cgroup->create(spec.sandbox.limits.processes + 3)) {
    return "sandbox `strict` limits processes, but attractor runs as root, whom RLIMIT_NPROC does not bind, and " +
           cgroup->error() + "; fix: run attractor as another user, or give it a writable pids cgroup";
  }
  spawn.on_started = [raw = cgroup.get(), inner = spec.on_started](const ProcessGroupRecord& record) {
    if (!raw->add(static_cast<pid_t>(record.pgid))) throw std::runtime_error(raw->error());
    if (inner) inner(record);
  };
  return std::nullopt;
}

}  // namespace

ProcessResult PosixProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  auto started = std::chrono::steady_clock::now();

  SpawnSpec spawn;
  spawn.env = environment_of(spec);
  spawn.cwd = spec.cwd;
  spawn.on_started = spec.on_started;
  std::unique_ptr<PidsCgroup> cgroup;
  if (auto why = confine(spec, spawn, cgroup)) {
    result.error = *why;
    result.sandbox_unavailable = true;
    return result;
  }
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

  std::optional<std::int64_t> timeout_ms = spec.timeout_ms;
  if (spec.sandbox.level == SandboxLevel::kStrict && spec.sandbox.limits.wall_ms > 0) {
    timeout_ms = std::min(timeout_ms.value_or(spec.sandbox.limits.wall_ms), spec.sandbox.limits.wall_ms);
  }
  auto deadline = timeout_ms ? started + std::chrono::milliseconds(*timeout_ms)
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
  if (spec.sandbox.level != SandboxLevel::kNone && !spec.stderr_path.empty()) {
    result.sandbox_denials = sandbox_denials(head_of(spec.stderr_path));
  }
  return result;
}

ProcessRunner& default_process_runner() {
  static PosixProcessRunner runner;
  return runner;
}

}  // namespace attractor
