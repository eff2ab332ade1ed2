#include "handlers/services/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "attractor/base/supervised_process.h"
#include "handlers/services/pids_cgroup.h"
#include "handlers/services/sandbox_host.h"

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

/// Gives `spawn` a pipe holding the filter of no_network_filter() as its inherited descriptor
/// (bubblewrap reads it to the end, so each command needs its own); why when it cannot.
std::optional<std::string> filter_descriptor(SpawnSpec& spawn) {
  std::string why;
  std::optional<std::string> program = no_network_filter(why);
  if (!program) return "sandbox.network=none cannot be set up: " + why;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0)
    return std::string("cannot create a pipe for the seccomp filter: ") + std::strerror(errno);
  const bool written = program->size() < PIPE_BUF * 16 &&
                       ::write(p[1], program->data(), program->size()) == static_cast<ssize_t>(program->size());
  ::close(p[1]);
  if (!written) {
    ::close(p[0]);
    return std::string("cannot hand the seccomp filter to bubblewrap");
  }
  spawn.inherited_fd = p[0];
  return std::nullopt;
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
  if (SandboxHost* host = spec.kept ? spec.kept->host_for(spec.sandbox) : nullptr) {
    host->prepare(spawn, spec.cwd, spec.command);
  } else {
    spawn.argv = sandbox_argv(spec.sandbox, spec.cwd, spec.command);
    spawn.program = spawn.argv.front();
  }
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

/// Milliseconds from now until `at` (0 when past), -1 for "no deadline".
int millis_until(std::chrono::steady_clock::time_point at) {
  if (at == std::chrono::steady_clock::time_point::max()) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at - std::chrono::steady_clock::now()).count();
  return static_cast<int>(std::clamp<std::int64_t>(left + 1, 0, INT32_MAX));
}

/// Waits for `process` to end without polling: the wait wakes when it ends, when `cancel` fires
/// and at the deadline. A timed-out or cancelled command's group gets SIGTERM, then SIGKILL
/// kKillGraceMs later.
void wait_for_end(SupervisedProcess& process, std::chrono::steady_clock::time_point deadline, const CancelToken& cancel,
                  ProcessResult& result) {
  constexpr int kKillGraceMs = 500;
  using clock = std::chrono::steady_clock;
  while (!process.wait_for(millis_until(deadline), cancel)) {
    if (clock::now() < deadline && !cancel.cancelled()) continue;
    if (clock::now() >= deadline) result.timed_out = true;
    else result.cancelled = true;
    process.signal_group(SIGTERM);
    auto kill_at = clock::now() + std::chrono::milliseconds(kKillGraceMs);
    while (!process.wait_for(millis_until(kill_at))) {
      if (clock::now() >= kill_at) {
        process.signal_group(SIGKILL);
        process.wait_for(-1);
        break;
      }
    }
    return;
  }
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
  std::optional<std::string> why = confine(spec, spawn, cgroup);
  if (!why && spec.sandbox.level != SandboxLevel::kNone && spec.sandbox.network == SandboxNetwork::kNone) {
    why = filter_descriptor(spawn);
  }
  if (why) {
    result.error = *why;
    result.sandbox_unavailable = true;
    return result;
  }
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } filter{spawn.inherited_fd};
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
  wait_for_end(process, deadline, spec.cancel, result);
  if (process.failure() == SpawnFailure::kEnter && spec.kept) {
    ProcessSpec own = spec;  // the kept sandbox ended under it: nothing ran, so start a bubblewrap
    own.kept = nullptr;
    return run(own);
  }
  if (process.failure() == SpawnFailure::kCwd || process.failure() == SpawnFailure::kExec ||
      process.failure() == SpawnFailure::kEnter) {
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
