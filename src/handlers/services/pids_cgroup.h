#pragma once
/// \file
/// A pids cgroup that caps how many processes a confined command can have at once. RLIMIT_NPROC
/// does the same for other users, but the kernel exempts root from it; when attractor runs as
/// root, `strict` (sandbox.h) puts the command's process group into one of these instead.
/// Works with the cgroup v1 `pids` hierarchy or a cgroup v2 tree whose `pids` controller is
/// enabled for attractor's cgroup's children.

#include <optional>
#include <string>
#include <sys/types.h>

namespace attractor {

/// One cgroup made for one command. Not copyable; the destructor kills what is left in it and
/// removes it.
class PidsCgroup {
 public:
  PidsCgroup() = default;
  ~PidsCgroup();
  PidsCgroup(const PidsCgroup&) = delete;
  PidsCgroup& operator=(const PidsCgroup&) = delete;

  /// Makes the cgroup with room for `max` processes. False when it could not: error() says why.
  bool create(long max);
  /// Moves process `pid` (and so everything it starts later) into the cgroup.
  bool add(pid_t pid);
  /// The cgroup's directory ("" before create()).
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string error_;
};

}  // namespace attractor
