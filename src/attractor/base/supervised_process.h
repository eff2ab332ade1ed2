#pragma once
/// \file
/// Starting a program so that nothing it starts outlives attractor (docs/run-directory.md §8).
///
/// `SupervisedProcess::start` starts a small supervisor that closes every descriptor attractor had
/// open, makes itself the leader of a new session and process group (so no program has a
/// controlling terminal to read or push input into), asks the kernel for a signal when
/// attractor dies (PR_SET_PDEATHSIG), waits for attractor's go-ahead, and then starts and execs
/// the program inside that group. The supervisor reports the program's exit status through a pipe
/// and then SIGKILLs its whole group, itself included: when the program ends, its background
/// children end with it; when attractor dies (SIGKILL included), the supervisor kills the group at
/// once, and the program also has PR_SET_PDEATHSIG for its supervisor. The group's id is the
/// supervisor's pid, so attractor knows it before the program runs and can record it
/// (ProcessGroupRecord) for a later `attractor resume` to check.
///
/// On x86-64 (raw::kSharedMemoryChild) neither child copies attractor's memory: the supervisor is
/// a process that shares it (clone with CLONE_VM, on a stack of its own) and the program's process
/// shares it until its exec (CLONE_VM | CLONE_VFORK), so a start costs about what posix_spawn
/// does whatever attractor's size (docs/decisions.md, "The supervisor shares attractor's
/// memory"). Elsewhere, and in sanitizer builds, both are forks.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/base/clock.h"

namespace attractor {

/// Where a started process group can be found again by another process: its id and the start
/// time of its leader (the supervisor), which tells a live group from a reused pid.
struct ProcessGroupRecord {
  long pgid = 0;
  unsigned long long start_ticks = 0;  ///< field 22 of /proc/PGID/stat
  std::string boot_id;                 ///< /proc/sys/kernel/random/boot_id: pids mean nothing across boots

  nlohmann::json to_json() const;
  /// Throws std::runtime_error naming the member when `j` does not have this shape.
  static ProcessGroupRecord from_json(const nlohmann::json& j);
};

/// The record of a live process `pid`; nullopt when it is gone.
std::optional<ProcessGroupRecord> process_group_record(pid_t pid);

/// True while a process of the recorded group may still run: its leader is alive with the
/// recorded start time, or (leader gone) some process still belongs to group `pgid`.
/// False for a record of another boot or a pid reused by an unrelated process.
bool process_group_alive(const ProcessGroupRecord& record);

/// SIGKILLs the recorded group when process_group_alive, then waits up to `wait_ms` for it to be
/// gone. True when it is gone (or was never alive).
bool stop_process_group(const ProcessGroupRecord& record, int wait_ms);

/// The descriptor number SpawnSpec::inherited_fd has in the program.
inline constexpr int kInheritedFd = 5;
/// The most namespaces SpawnSpec::supervisor_namespaces and namespaces may name together.
inline constexpr int kMaxNamespaces = 7;

/// What to run. Descriptors are the parent's; the program gets them as 0, 1 and 2.
struct SpawnSpec {
  std::string program;            ///< absolute path, or a name looked up on PATH
  std::vector<std::string> argv;  ///< argv[0] included
  std::vector<std::string> env;   ///< the whole environment, `NAME=value`
  std::string cwd;                ///< "" = attractor's working directory
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  /// A further descriptor the program gets as kInheritedFd (5); -1: none.
  int inherited_fd = -1;
  /// Namespaces to enter before the program runs (a kept sandbox, handlers/services/sandbox_host.h),
  /// as descriptors of /proc/PID/ns files. The supervisor enters `supervisor_namespaces` in order
  /// (the user namespace, then the PID namespace, so the program starts inside both); the program
  /// enters `namespaces` (mount, IPC, UTS, ...), changes to `cwd` inside them, drops every
  /// capability and sets no_new_privs before its exec.
  std::vector<int> supervisor_namespaces;
  std::vector<int> namespaces;
  /// Called once the group exists and before the program starts (it may record the group).
  /// An exception from it stops the group and fails the start with its message.
  std::function<void(const ProcessGroupRecord&)> on_started;
};

/// Why a program did not start.
enum class SpawnFailure { kNone, kCwd, kExec, kEnter, kSystem };

/// One supervised program. Not copyable; the destructor kills a group still running and reaps it.
class SupervisedProcess {
 public:
  /// What the supervisor and the program's process read: owned here until the supervisor is
  /// reaped, since a supervisor that shares attractor's memory reads it in place.
  struct Launch {
    std::string program;  ///< resolved path
    std::string cwd;
    std::vector<std::string> argv_strings, env_strings;
    std::vector<char*> argv, envp;  ///< null-terminated views of the strings
    const char* cwd_arg = nullptr;  ///< nullptr: stay in attractor's directory
    /// stdin, stdout, stderr, report, go-ahead, inherited, then the supervisor's namespaces and the
    /// program's
    int fds[kMaxNamespaces + 6] = {-1, -1, -1, -1, -1, -1};
    int fd_count = 6;                    ///< slots of `fds` in use
    int supervisor_namespace_count = 0;  ///< from slot 6
    int namespace_count = 0;             ///< the program's, after the supervisor's
    pid_t parent = 0;
    void* stacks = nullptr;  ///< the children's stacks when they share attractor's memory, else nullptr
    ~Launch();
  };

  SupervisedProcess();
  ~SupervisedProcess();
  SupervisedProcess(const SupervisedProcess&) = delete;
  SupervisedProcess& operator=(const SupervisedProcess&) = delete;

  /// Starts `spec`. False when it could not: failure() and error() say why (a missing working
  /// directory or program is reported once the program's process has tried, as kCwd/kExec).
  bool start(const SpawnSpec& spec);
  /// Waits up to `timeout_ms` (-1: forever) for the program to end; true once it has ended and
  /// wait_status() is known.
  bool wait_for(int timeout_ms);
  /// As wait_for, but also returns (false) as soon as `cancel` fires.
  bool wait_for(int timeout_ms, const CancelToken& cancel);
  /// Sends `sig` to the whole group (the supervisor ignores all but SIGKILL).
  void signal_group(int sig) const;
  /// The program's wait status (as from waitpid); the supervisor's when it was killed first.
  int wait_status() const { return status_; }
  /// Set once the program has ended: kCwd, kExec or kEnter (its namespaces could not be entered)
  /// when it never ran.
  SpawnFailure failure() const { return failure_; }
  /// The failure as a sentence: "cannot change to directory DIR: REASON", "cannot run PROGRAM: REASON".
  const std::string& error() const { return error_; }
  /// The errno of the failure (0 if none).
  int failure_errno() const { return failure_errno_; }
  pid_t pgid() const { return pid_; }

 private:
  void prepare_launch(const SpawnSpec& spec);
  bool fail_start(const std::string& what);
  bool let_program_run(const SpawnSpec& spec, int go_fd);
  void read_reports(bool block);
  void reap();

  std::unique_ptr<Launch> launch_;
  pid_t pid_ = -1;
  int report_fd_ = -1;
  bool ended_ = false;
  bool have_status_ = false;
  int status_ = 0;
  SpawnFailure failure_ = SpawnFailure::kNone;
  int failure_errno_ = 0;
  std::string error_;
  std::string program_;
  std::string cwd_;
};

}  // namespace attractor
