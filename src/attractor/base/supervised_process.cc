#include "attractor/base/supervised_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "attractor/base/raw_syscall.h"

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
constexpr int kReportEnter = 5;   ///< value: errno of entering a namespace or dropping privileges

/// The signal the kernel sends the supervisor when attractor's thread that started it dies.
constexpr int kParentDeathSignal = SIGUSR1;

/// Descriptor numbers inside the supervisor.
constexpr int kReportFd = 3;
constexpr int kGoFd = 4;
constexpr int kFirstNamespaceFd = 6;

/// The stacks of a supervisor that shares attractor's memory and of the program's process it
/// starts (which runs until its exec while the supervisor waits): one mapping, a guard page
/// below each.
constexpr std::size_t kGuardBytes = 4096;
constexpr std::size_t kStackBytes = 60 * 1024;
constexpr std::size_t kStacksMapping = 2 * (kGuardBytes + kStackBytes);

/// The kernel's `struct sigaction` (rt_sigaction takes it, not the C library's).
struct KernelSigaction {
  unsigned long handler;
  unsigned long flags;
  unsigned long restorer;
  unsigned long mask;
};

unsigned long signal_bit(int sig) { return 1UL << (sig - 1); }

void send_report(int kind, int value) {
  Report r{kind, value};
  raw::call(SYS_write, kReportFd, reinterpret_cast<long>(&r), sizeof r);
}

[[noreturn]] void exit_now(int code) {
  for (;;) raw::call(SYS_exit_group, code);
}

/// Enters the namespaces of slots `first` to `first + count - 1`, closing each. 0, or -errno.
long enter_namespaces(int first, int count) {
  for (int fd = first; fd < first + count; ++fd) {
    long r = raw::call(SYS_setns, fd, 0);
    raw::call(SYS_close, fd);
    if (r < 0) return r;
  }
  return 0;
}

/// Gives up every capability for good: the bounding and ambient sets emptied, capset to nothing,
/// no_new_privs (what bubblewrap does before it execs a sandboxed command). 0, or -errno.
long drop_privileges() {
  for (long cap = 0; cap < 64; ++cap) raw::call(SYS_prctl, PR_CAPBSET_DROP, cap);
  raw::call(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct {
    unsigned version;
    int pid;
  } header{0x20080522, 0};  // _LINUX_CAPABILITY_VERSION_3
  unsigned data[6] = {0, 0, 0, 0, 0, 0};
  long r = raw::call(SYS_capset, reinterpret_cast<long>(&header), reinterpret_cast<long>(data));
  if (r < 0) return r;
  return raw::call(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/// The program's process: default signal handling, death with its supervisor, the namespaces of
/// a kept sandbox, the working directory, exec. Raw system calls only (it may share attractor's
/// memory and thread pointer).
[[noreturn]] void exec_program(const SupervisedProcess::Launch& launch) {
  const KernelSigaction dfl{};
  for (int s = 1; s <= 64; ++s) raw::call(SYS_rt_sigaction, s, reinterpret_cast<long>(&dfl), 0, 8);
  raw::call(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
  const unsigned long none = 0;
  raw::call(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&none), 0, 8);
  raw::call(SYS_fcntl, kReportFd, F_SETFD, FD_CLOEXEC);
  if (launch.supervisor_namespace_count > 0) {
    long r = enter_namespaces(kFirstNamespaceFd + launch.supervisor_namespace_count, launch.namespace_count);
    if (r == 0) r = drop_privileges();
    if (r < 0) {
      send_report(kReportEnter, static_cast<int>(-r));
      exit_now(127);
    }
  }
  if (launch.cwd_arg) {
    long r = raw::call(SYS_chdir, reinterpret_cast<long>(launch.cwd_arg));
    if (r < 0) {
      send_report(kReportCwd, static_cast<int>(-r));
      exit_now(127);
    }
  }
  long r = raw::call(SYS_execve, reinterpret_cast<long>(launch.program.c_str()),
                     reinterpret_cast<long>(launch.argv.data()), reinterpret_cast<long>(launch.envp.data()));
  send_report(kReportExec, static_cast<int>(-r));
  exit_now(127);
}

int program_entry(void* launch) { exec_program(*static_cast<const SupervisedProcess::Launch*>(launch)); }

/// Starts the program's process: sharing the supervisor's memory and stopping the supervisor
/// until the exec (no page tables copied) when the supervisor shares attractor's memory, a fork
/// otherwise. The pid, or -errno.
long start_program(const SupervisedProcess::Launch& launch) {
  if (launch.stacks == nullptr) {
    pid_t child = ::fork();
    if (child == 0) exec_program(launch);
    return child < 0 ? -errno : child;
  }
  char* top = static_cast<char*>(launch.stacks) + kGuardBytes + kStackBytes;
  return raw::clone_on_stack(CLONE_VM | CLONE_VFORK | SIGCHLD, top, program_entry,
                             const_cast<SupervisedProcess::Launch*>(&launch));
}

/// Moves the descriptors of `fds` (stdin, stdout, stderr, report, go, inherited, the namespaces)
/// to 0 to count - 1, closes the slots left at -1 and every descriptor above. False when one could
/// not be duplicated.
bool take_descriptors(const int* fds, int count) {
  long high[kMaxNamespaces + 6];
  for (int i = 0; i < count; ++i) {
    high[i] = fds[i] < 0 ? -1 : raw::call(SYS_fcntl, fds[i], F_DUPFD, 32);
    if (fds[i] >= 0 && high[i] < 0) return false;
  }
  for (int i = 0; i < count; ++i) {
    if (high[i] >= 0) raw::call(SYS_dup3, high[i], i, 0);
    else raw::call(SYS_close, i);
  }
  raw::call(SYS_close_range, count, ~0U, 0);
  return true;
}

/// Waits for the program or attractor's death, reports, and kills the group (itself included).
[[noreturn]] void watch_program(long child, pid_t parent) {
  const unsigned long wanted = signal_bit(SIGCHLD) | signal_bit(kParentDeathSignal);
  for (;;) {
    long sig = raw::call(SYS_rt_sigtimedwait, reinterpret_cast<long>(&wanted), 0, 0, 8);
    if (sig == kParentDeathSignal && raw::call(SYS_getppid) != parent) {
      raw::call(SYS_kill, 0, SIGKILL);
      exit_now(1);
    }
    int status = 0;
    if (sig == SIGCHLD && raw::call(SYS_wait4, child, reinterpret_cast<long>(&status), WNOHANG, 0) == child) {
      send_report(kReportStatus, status);
      raw::call(SYS_kill, 0, SIGKILL);
      exit_now(0);
    }
  }
}

/// The supervisor (section comment in the header). Raw system calls only: it may share
/// attractor's memory and thread pointer. Every signal is blocked on entry.
[[noreturn]] void supervise(const SupervisedProcess::Launch& launch) {
  if (!take_descriptors(launch.fds, launch.fd_count)) exit_now(127);
  raw::call(SYS_setsid);  // a session and group of its own: no terminal to push input into
  raw::call(SYS_prctl, PR_SET_NAME, reinterpret_cast<long>("attractor-guard"));
  const KernelSigaction dfl{};
  raw::call(SYS_rt_sigaction, SIGCHLD, reinterpret_cast<long>(&dfl), 0, 8);
  raw::call(SYS_prctl, PR_SET_PDEATHSIG, kParentDeathSignal);
  if (raw::call(SYS_getppid) != launch.parent) exit_now(1);
  char go = 0;
  long n;
  do n = raw::call(SYS_read, kGoFd, reinterpret_cast<long>(&go), 1);
  while (n == -EINTR);
  if (n != 1) exit_now(1);
  raw::call(SYS_close, kGoFd);
  if (launch.supervisor_namespace_count > 0) {
    long r = enter_namespaces(kFirstNamespaceFd, launch.supervisor_namespace_count);
    if (r < 0) {
      send_report(kReportEnter, static_cast<int>(-r));
      exit_now(127);
    }
  }
  long child = start_program(launch);
  if (child < 0) {
    send_report(kReportFork, static_cast<int>(-child));
    exit_now(127);
  }
  for (int fd = 0; fd < 3; ++fd) raw::call(SYS_close, fd);
  watch_program(child, launch.parent);
}

int supervisor_entry(void* launch) { supervise(*static_cast<const SupervisedProcess::Launch*>(launch)); }

/// Starts the supervisor: in attractor's memory (raw::kSharedMemoryChild; docs/decisions.md) or
/// as a fork. The pid, or -errno. Every signal must be blocked.
long start_supervisor(SupervisedProcess::Launch& launch) {
  if (launch.stacks == nullptr) {
    pid_t pid = ::fork();
    if (pid == 0) supervise(launch);
    return pid < 0 ? -errno : pid;
  }
  char* top = static_cast<char*>(launch.stacks) + kStacksMapping;
  return raw::clone_on_stack(CLONE_VM | SIGCHLD, top, supervisor_entry, &launch);
}

/// The two stacks of a supervisor in attractor's memory, or nullptr (fork instead).
void* map_stacks() {
  if (!raw::kSharedMemoryChild) return nullptr;
  void* p = ::mmap(nullptr, kStacksMapping, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(p);
  ::mprotect(base, kGuardBytes, PROT_NONE);
  ::mprotect(base + kGuardBytes + kStackBytes, kGuardBytes, PROT_NONE);
  return p;
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
  if (::kill(static_cast<pid_t>(-record.pgid), SIGKILL) != 0 && errno == ESRCH) {
    ::kill(static_cast<pid_t>(record.pgid), SIGKILL);  // a supervisor before its setsid
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (process_group_alive(record)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

SupervisedProcess::Launch::~Launch() {
  if (stacks) ::munmap(stacks, kStacksMapping);
}

SupervisedProcess::SupervisedProcess() = default;

SupervisedProcess::~SupervisedProcess() {
  if (pid_ <= 0 || ended_) return;
  signal_group(SIGKILL);
  while (!ended_) read_reports(true);
}

void SupervisedProcess::prepare_launch(const SpawnSpec& spec) {
  launch_ = std::make_unique<Launch>();
  Launch& l = *launch_;
  l.program = resolve_program(spec.program);
  l.cwd = spec.cwd;
  l.argv_strings = spec.argv;
  l.env_strings = spec.env;
  for (auto& s : l.argv_strings) l.argv.push_back(s.data());
  l.argv.push_back(nullptr);
  for (auto& s : l.env_strings) l.envp.push_back(s.data());
  l.envp.push_back(nullptr);
  l.cwd_arg = l.cwd.empty() ? nullptr : l.cwd.c_str();
  const std::size_t namespaces = spec.supervisor_namespaces.size() + spec.namespaces.size();
  if (namespaces > static_cast<std::size_t>(kMaxNamespaces) || (namespaces > 0 && spec.supervisor_namespaces.empty())) {
    throw std::invalid_argument("SpawnSpec: at most 7 namespaces, the user namespace entered by the supervisor");
  }
  l.supervisor_namespace_count = static_cast<int>(spec.supervisor_namespaces.size());
  l.namespace_count = static_cast<int>(spec.namespaces.size());
  l.fd_count = namespaces > 0           ? kFirstNamespaceFd + static_cast<int>(namespaces)
               : spec.inherited_fd >= 0 ? kInheritedFd + 1
                                        : kInheritedFd;
  l.parent = ::getpid();
  l.stacks = map_stacks();
  program_ = l.program;
  cwd_ = l.cwd;
}

bool SupervisedProcess::fail_start(const std::string& what) {
  error_ = what + ": " + std::strerror(errno);
  failure_ = SpawnFailure::kSystem;
  return false;
}

bool SupervisedProcess::start(const SpawnSpec& spec) {
  prepare_launch(spec);
  int report[2];
  int go[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return fail_start("cannot create pipe");
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0) {
    ::close(report[0]);
    ::close(report[1]);
    return fail_start("cannot create socket pair");
  }
  const int fds[6] = {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd, report[1], go[0], spec.inherited_fd};
  std::copy(fds, fds + 6, launch_->fds);
  int* slot = launch_->fds + kFirstNamespaceFd;
  slot = std::copy_n(spec.supervisor_namespaces.begin(), launch_->supervisor_namespace_count, slot);
  std::copy_n(spec.namespaces.begin(), launch_->namespace_count, slot);
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  long pid = start_supervisor(*launch_);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(report[1]);
  ::close(go[0]);
  if (pid < 0) {
    ::close(report[0]);
    ::close(go[1]);
    errno = static_cast<int>(-pid);
    return fail_start("fork failed");
  }
  pid_ = static_cast<pid_t>(pid);
  report_fd_ = report[0];
  return let_program_run(spec, go[1]);
}

bool SupervisedProcess::let_program_run(const SpawnSpec& spec, int go_fd) {
  try {
    if (spec.on_started) {
      std::optional<ProcessGroupRecord> record = process_group_record(pid_);
      if (!record) throw std::runtime_error("the supervisor process ended before the program started");
      spec.on_started(*record);
    }
  } catch (const std::exception& e) {
    ::close(go_fd);
    signal_group(SIGKILL);
    while (!ended_) read_reports(true);
    error_ = e.what();
    failure_ = SpawnFailure::kSystem;
    return false;
  }
  [[maybe_unused]] ssize_t sent = ::send(go_fd, "g", 1, MSG_NOSIGNAL);
  ::close(go_fd);
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
      failure_ = r.kind == kReportCwd     ? SpawnFailure::kCwd
                 : r.kind == kReportExec  ? SpawnFailure::kExec
                 : r.kind == kReportEnter ? SpawnFailure::kEnter
                                          : SpawnFailure::kSystem;
      const std::string reason = std::strerror(r.value);
      error_ = failure_ == SpawnFailure::kCwd    ? "cannot change to directory " + cwd_ + ": " + reason
               : failure_ == SpawnFailure::kExec ? "cannot run " + program_ + ": " + reason
               : r.kind == kReportEnter          ? "cannot enter the sandbox's namespaces: " + reason
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

bool SupervisedProcess::wait_for(int timeout_ms, const CancelToken& cancel) {
  if (ended_ || pid_ <= 0) return true;
  if (wait_readable(report_fd_, timeout_ms, cancel)) read_reports(true);
  while (!ended_ && have_status_) read_reports(true);
  return ended_;
}

void SupervisedProcess::signal_group(int sig) const {
  if (pid_ <= 0 || ended_) return;
  // Before the supervisor's setsid there is no group yet, and no program either (it starts after
  // the go byte, which the supervisor reads after its setsid): the supervisor alone gets `sig`.
  if (::kill(-pid_, sig) != 0 && errno == ESRCH) ::kill(pid_, sig);
}

}  // namespace attractor
