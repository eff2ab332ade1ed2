#include "attractor/base/supervised_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace attractor {

namespace {

/// A message from the supervisor or the program's process to attractor: fixed size, so one
/// write is atomic on a pipe.
struct Report {
  int kind;
  int value;
};
constexpr int kReportCwd = 1;     ///< value: errno of chdir
constexpr int kReportExec = 2;    ///< value: errno of execve
constexpr int kReportFork = 3;    ///< value: errno of the supervisor's fork
constexpr int kReportStatus = 4;  ///< value: the program's wait status

/// The signal the kernel sends the supervisor when attractor's thread that started it dies.
constexpr int kParentDeathSignal = SIGUSR1;

/// Descriptor numbers inside the supervisor.
constexpr int kReportFd = 3;
constexpr int kGoFd = 4;

void send_report(int kind, int value) {
  Report r{kind, value};
  [[maybe_unused]] ssize_t n = ::write(kReportFd, &r, sizeof r);
}

/// The program's process: default signal handling, the working directory, exec. Only
/// async-signal-safe calls (it runs in a fork of a multithreaded process).
[[noreturn]] void exec_program(const char* path, char* const argv[], char* const envp[], const char* cwd) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::fcntl(kReportFd, F_SETFD, FD_CLOEXEC);
  if (cwd && ::chdir(cwd) != 0) {
    send_report(kReportCwd, errno);
    ::_exit(127);
  }
  ::execve(path, argv, envp);
  send_report(kReportExec, errno);
  ::_exit(127);
}

/// The supervisor (section comment in the header). `fds` are the parent's stdin, stdout, stderr,
/// report and go descriptors. Only async-signal-safe calls; every signal is blocked on entry.
[[noreturn]] void supervise(const int fds[5], pid_t parent, const char* path, char* const argv[], char* const envp[],
                            const char* cwd) {
  int high[5];
  for (int i = 0; i < 5; ++i) {
    high[i] = ::fcntl(fds[i], F_DUPFD, 16);
    if (high[i] < 0) ::_exit(127);
  }
  for (int i = 0; i < 5; ++i) ::dup2(high[i], i);
  ::close_range(5, ~0U, 0);
  ::setpgid(0, 0);
  ::prctl(PR_SET_NAME, "attractor-guard");
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGCHLD, &dfl, nullptr);
  ::prctl(PR_SET_PDEATHSIG, kParentDeathSignal);
  if (::getppid() != parent) ::_exit(1);
  char go = 0;
  ssize_t n;
  do n = ::read(kGoFd, &go, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1) ::_exit(1);
  ::close(kGoFd);
  pid_t child = ::fork();
  if (child < 0) {
    send_report(kReportFork, errno);
    ::_exit(127);
  }
  if (child == 0) exec_program(path, argv, envp, cwd);
  for (int fd = 0; fd < 3; ++fd) ::close(fd);
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGCHLD);
  sigaddset(&wanted, kParentDeathSignal);
  for (;;) {
    int sig = ::sigwaitinfo(&wanted, nullptr);
    if (sig == kParentDeathSignal && ::getppid() != parent) {
      ::kill(0, SIGKILL);
      ::_exit(1);
    }
    int status = 0;
    if (sig == SIGCHLD && ::waitpid(child, &status, WNOHANG) == child) {
      send_report(kReportStatus, status);
      ::kill(0, SIGKILL);
      ::_exit(0);
    }
  }
}

/// `program` when it names a path, else its first match on PATH (or itself, for exec to refuse).
std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return program;
}

/// The fields of /proc/PID/stat a record needs.
struct ProcStat {
  char state = 0;
  long pgrp = 0;
  unsigned long long start_ticks = 0;
};

std::optional<ProcStat> read_proc_stat(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  std::size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  ProcStat st;
  std::string skip;
  long ppid = 0;
  if (!(fields >> st.state >> ppid >> st.pgrp)) return std::nullopt;
  for (int i = 0; i < 16; ++i) fields >> skip;  // fields 6 to 21
  if (!(fields >> st.start_ticks)) return std::nullopt;
  return st;
}

const std::string& current_boot_id() {
  static const std::string id = [] {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string line;
    std::getline(in, line);
    return line;
  }();
  return id;
}

/// True when a live (not zombie) process of group `pgid` started at or after `since`.
bool group_has_live_member(long pgid, unsigned long long since) {
  DIR* proc = ::opendir("/proc");
  if (!proc) return ::kill(static_cast<pid_t>(-pgid), 0) == 0;
  bool found = false;
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::optional<ProcStat> st = read_proc_stat(pid);
    if (st && st->pgrp == pgid && st->state != 'Z' && st->start_ticks >= since) {
      found = true;
      break;
    }
  }
  ::closedir(proc);
  return found;
}

}  // namespace

nlohmann::json ProcessGroupRecord::to_json() const {
  return {{"pgid", pgid}, {"start_ticks", start_ticks}, {"boot_id", boot_id}};
}

ProcessGroupRecord ProcessGroupRecord::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("a process record must be a JSON object");
  ProcessGroupRecord r;
  if (!j.contains("pgid") || !j["pgid"].is_number_integer()) throw std::runtime_error("`pgid` must be an integer");
  if (!j.contains("start_ticks") || !j["start_ticks"].is_number_unsigned()) {
    throw std::runtime_error("`start_ticks` must be a non-negative integer");
  }
  if (!j.contains("boot_id") || !j["boot_id"].is_string()) throw std::runtime_error("`boot_id` must be a string");
  r.pgid = j["pgid"].get<long>();
  r.start_ticks = j["start_ticks"].get<unsigned long long>();
  r.boot_id = j["boot_id"].get<std::string>();
  return r;
}

std::optional<ProcessGroupRecord> process_group_record(pid_t pid) {
  std::optional<ProcStat> st = read_proc_stat(pid);
  if (!st) return std::nullopt;
  return ProcessGroupRecord{pid, st->start_ticks, current_boot_id()};
}

bool process_group_alive(const ProcessGroupRecord& record) {
  if (record.pgid <= 1 || record.boot_id != current_boot_id()) return false;
  std::optional<ProcStat> leader = read_proc_stat(record.pgid);
  if (leader && leader->start_ticks != record.start_ticks) return false;
  if (leader && leader->state != 'Z') return true;
  return group_has_live_member(record.pgid, record.start_ticks);
}

bool stop_process_group(const ProcessGroupRecord& record, int wait_ms) {
  if (!process_group_alive(record)) return true;
  ::kill(static_cast<pid_t>(-record.pgid), SIGKILL);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (process_group_alive(record)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

SupervisedProcess::~SupervisedProcess() {
  if (pid_ <= 0 || ended_) return;
  signal_group(SIGKILL);
  while (!ended_) read_reports(true);
}

bool SupervisedProcess::start(const SpawnSpec& spec) {
  program_ = resolve_program(spec.program);
  cwd_ = spec.cwd;
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = spec.env;
  std::vector<char*> argv, envp;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  int report[2];
  int go[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    error_ = std::string("cannot create pipe: ") + std::strerror(errno);
    failure_ = SpawnFailure::kSystem;
    return false;
  }
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0) {
    error_ = std::string("cannot create socket pair: ") + std::strerror(errno);
    failure_ = SpawnFailure::kSystem;
    ::close(report[0]);
    ::close(report[1]);
    return false;
  }
  const int fds[5] = {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd, report[1], go[0]};
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) supervise(fds, parent, program_.c_str(), argv.data(), envp.data(), cwd);
  int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(report[1]);
  ::close(go[0]);
  if (pid < 0) {
    ::close(report[0]);
    ::close(go[1]);
    error_ = std::string("fork failed: ") + std::strerror(fork_errno);
    failure_ = SpawnFailure::kSystem;
    return false;
  }
  ::setpgid(pid, pid);
  pid_ = pid;
  report_fd_ = report[0];
  try {
    if (spec.on_started) {
      std::optional<ProcessGroupRecord> record = process_group_record(pid);
      if (!record) throw std::runtime_error("the supervisor process ended before the program started");
      spec.on_started(*record);
    }
  } catch (const std::exception& e) {
    ::close(go[1]);
    signal_group(SIGKILL);
    while (!ended_) read_reports(true);
    error_ = e.what();
    failure_ = SpawnFailure::kSystem;
    return false;
  }
  [[maybe_unused]] ssize_t sent = ::send(go[1], "g", 1, MSG_NOSIGNAL);
  ::close(go[1]);
  return true;
}

void SupervisedProcess::read_reports(bool block) {
  pollfd p{report_fd_, POLLIN, 0};
  if (!block && ::poll(&p, 1, 0) <= 0) return;
  Report buf[8];
  ssize_t n = ::read(report_fd_, buf, sizeof buf);
  if (n < 0) {
    if (errno == EINTR) return;
    n = 0;
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(n) / sizeof(Report); ++i) {
    const Report& r = buf[i];
    if (r.kind == kReportStatus) {
      status_ = r.value;
      have_status_ = true;
    } else if (failure_ == SpawnFailure::kNone) {
      failure_errno_ = r.value;
      failure_ = r.kind == kReportCwd    ? SpawnFailure::kCwd
                 : r.kind == kReportExec ? SpawnFailure::kExec
                                         : SpawnFailure::kSystem;
      const std::string reason = std::strerror(r.value);
      error_ = failure_ == SpawnFailure::kCwd    ? "cannot change to directory " + cwd_ + ": " + reason
               : failure_ == SpawnFailure::kExec ? "cannot run " + program_ + ": " + reason
                                                 : "fork failed: " + reason;
    }
  }
  if (n == 0) reap();
}

void SupervisedProcess::reap() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  if (!have_status_) status_ = status;
  ::close(report_fd_);
  report_fd_ = -1;
  ended_ = true;
}

bool SupervisedProcess::wait_for(int timeout_ms) {
  if (ended_) return true;
  if (pid_ <= 0) return true;
  pollfd p{report_fd_, POLLIN, 0};
  int r = ::poll(&p, 1, timeout_ms);
  if (r > 0) read_reports(true);
  while (!ended_ && have_status_) read_reports(true);  // the supervisor is ending its group
  return ended_;
}

void SupervisedProcess::signal_group(int sig) const {
  if (pid_ > 0 && !ended_) ::kill(-pid_, sig);
}

}  // namespace attractor
