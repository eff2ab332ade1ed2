#pragma once
/// \file
/// `run.lock` in a run directory: held (flock) by the process that runs it, with that process's
/// pid and start time inside (`PID START_TICKS`). Whoever can take the lock knows nobody is
/// running the directory, whatever a stale file says, so `attractor runs` and `status` tell a live
/// run from one whose process died, and `attractor resume` refuses a run another process is still
/// executing. A lock still held while the process named in it is gone (a descendant of the dead
/// owner has the open file) is waited for up to kStaleLockWaitMs and then replaced: a stale lock
/// never blocks a resume (docs/run-directory.md §8).

#include <optional>
#include <stdexcept>
#include <string>

namespace attractor {

/// How long a lock held with a dead owner is waited for before it is replaced.
inline constexpr int kStaleLockWaitMs = 1000;

/// The lock file's name inside a run directory.
inline constexpr char kRunLockFile[] = "run.lock";

/// Thrown when another live process holds a run's lock.
class RunLockBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunLock {
 public:
  /// Takes the lock of `run_dir` (which must exist) for this process. Throws RunLockBusy
  /// "RUN_DIR is being run by process PID" when another process holds it, and std::runtime_error
  /// when the file cannot be created or written (a read-only or full disk).
  explicit RunLock(const std::string& run_dir);
  /// Releases the lock and removes the file.
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

/// The pid of the live process holding `run_dir`'s lock; nullopt when nobody holds it (no file,
/// a file left by a process that died, or one still held by a dead owner's descendant).
std::optional<long> run_lock_holder(const std::string& run_dir);

}  // namespace attractor
