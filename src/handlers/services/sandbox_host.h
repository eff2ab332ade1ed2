#pragma once
/// \file
/// A sandbox kept up for the commands of one coding-agent session (docs/security.md §2.1). A
/// bubblewrap start costs 10 ms or more on a small machine, most of it making and tearing down
/// the namespaces; an agent runs dozens of `shell` commands with one confinement. So the session's
/// first command starts one bubblewrap with that confinement, running a shell that only waits
/// on a pipe (the holder), and every command then enters the holder's namespaces (user, PID,
/// mount, IPC, UTS, cgroup, and network when it has its own) and drops every capability before its
/// exec (SpawnSpec::supervisor_namespaces and namespaces). It sees exactly what a command of its
/// own bubblewrap would, with one difference: the commands of one session share the holder's
/// private `/tmp` and PID namespace, as they share the workspace.
///
/// Network `none` is not kept: its seccomp filter is loaded by bubblewrap, which a command that
/// enters the namespaces does not pass through, so those commands start a bubblewrap each.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "attractor/base/supervised_process.h"
#include "handlers/services/sandbox.h"

namespace attractor {

class SandboxHost {
 public:
  /// Whether commands confined by `spec` can share a kept sandbox: a level above `none` and a
  /// network other than `none`.
  static bool suits(const SandboxSpec& spec);
  /// Starts the holder of `spec` (paths placed: place_sandbox); nullptr and `why` when it did not
  /// start (the commands then start a bubblewrap each, confined all the same).
  static std::unique_ptr<SandboxHost> start(const SandboxSpec& spec, std::string& why);

  /// Ends the holder: its pipe closes, its shell ends, the kernel ends every process left in its
  /// PID namespace.
  ~SandboxHost();
  SandboxHost(const SandboxHost&) = delete;
  SandboxHost& operator=(const SandboxHost&) = delete;

  /// True while the holder runs (a command may have killed it: then start another).
  bool alive();
  /// Whether a command confined by `spec` may run here: the same confinement as the holder's.
  bool matches(const SandboxSpec& spec) const;
  /// Points `spawn` at confined_command() run in `cwd` inside the holder's namespaces.
  void prepare(SpawnSpec& spawn, const std::string& cwd, const std::string& command) const;
  /// The holder's process as the kernel numbers it outside (bubblewrap's `child-pid`).
  long holder_pid() const { return holder_pid_; }

 private:
  SandboxHost() = default;
  bool open_namespaces(const std::string& info, std::string& why);

  SandboxSpec spec_;
  std::vector<std::string> key_;
  SupervisedProcess holder_;
  int keep_open_ = -1;  ///< the holder's stdin: it ends when this closes
  long holder_pid_ = 0;
  std::vector<int> supervisor_namespaces_;  ///< user, PID
  std::vector<int> namespaces_;             ///< mount, IPC, UTS, cgroup, network
};

/// The kept sandbox of one session (an agent's `shell` commands): the first command that can use
/// one starts it, a command with another confinement or after the holder died starts the next
/// (at most kMaxStarts; after that each command starts its own bubblewrap). Thread-safe.
class KeptSandbox {
 public:
  static constexpr int kMaxStarts = 3;
  /// The holder for a command confined by `spec`; nullptr: start a bubblewrap for this one.
  SandboxHost* host_for(const SandboxSpec& spec);

 private:
  std::mutex mutex_;
  std::unique_ptr<SandboxHost> host_;
  int starts_ = 0;
};

}  // namespace attractor
