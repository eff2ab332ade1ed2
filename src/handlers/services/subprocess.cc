#include "handlers/services/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace attractor {

namespace {

int open_output(const std::string& path) {
  if (path.empty()) return ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

ProcessResult PosixProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  auto started = std::chrono::steady_clock::now();

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
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string shell = "/bin/sh";
  std::string dash_c = "-c";
  std::string command = spec.command;
  char* argv[] = {shell.data(), dash_c.data(), command.data(), nullptr};

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

  pid_t pid = ::fork();
  if (pid < 0) {
    result.error = std::string("fork failed: ") + std::strerror(errno);
    ::close(out_fd);
    ::close(err_fd);
    ::close(in_fd);
    return result;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(in_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) ::_exit(127);
    ::execve("/bin/sh", argv, envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_fd);
  ::close(err_fd);
  ::close(in_fd);

  auto deadline = spec.timeout_ms ? started + std::chrono::milliseconds(*spec.timeout_ms)
                                  : std::chrono::steady_clock::time_point::max();
  int status = 0;
  bool killing = false;
  std::chrono::steady_clock::time_point kill_at{};
  auto sleep_for = std::chrono::microseconds(200);
  while (true) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    auto now = std::chrono::steady_clock::now();
    if (!killing && (now >= deadline || spec.cancel.cancelled())) {
      if (now >= deadline) result.timed_out = true;
      else result.cancelled = true;
      ::kill(-pid, SIGTERM);
      killing = true;
      kill_at = now + std::chrono::milliseconds(500);
    } else if (killing && now >= kill_at) {
      ::kill(-pid, SIGKILL);
      kill_at = std::chrono::steady_clock::time_point::max();
    }
    std::this_thread::sleep_for(sleep_for);
    if (sleep_for < std::chrono::milliseconds(10)) sleep_for *= 2;
  }
  if (killing) ::kill(-pid, SIGKILL);
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
