#pragma once
/// \file
/// `attractor fork RUN_DIR --at NODE[@VISIT] [--logs-root DIR]` (docs/workspace.md, section 6): a
/// new worktree run (new id, new run directory, new branch from the commit that stage left) whose
/// checkpoint is the original's state just after that stage, so `attractor resume DIR` runs it.
/// The original is only read.
///
/// Invariants:
///   1. The new run directory is assembled under a hidden name beside its final one
///      (`.NAME.fork-HEX`, new for every fork) and renamed into place whole: a kill before the
///      rename leaves no run, only that hidden folder, which nothing reads or reuses.
///   2. Its worktree is made after the rename, while `fork.json` (the intent) says it is still
///      to make; whoever next takes the new run (`resume`, `rewind`, `fork`) makes it first, and
///      the intent is removed only once the worktree is at the fork's commit.

#include <optional>
#include <string>
#include <variant>

#include "attractor/launch/run_workspace.h"
#include "attractor/run/posix_run_disk.h"

namespace attractor {

/// The intent's file name inside a new run directory.
inline constexpr char kForkIntentFile[] = "fork.json";

/// What a fork made.
struct ForkDone {
  std::string run_dir;
  std::string run_id;
  std::string branch;
  std::string point;      ///< `NODE@VISIT` of the original
  std::string commit;     ///< where the new branch starts
  std::string next_node;  ///< where `resume` continues
};

/// Forks the worktree run at `run_dir` at the stage `point` names into `logs_root` (the new run
/// directory; "" = a new `<graph>-<UTC time>-<hex>` folder beside `run_dir`), holding the
/// original's lock while it reads. Refused (exit 2, with the valid points) like `rewind_run`, and
/// when `logs_root` already holds a run; exit 3 when git or the disk fails.
std::variant<ForkDone, RunRefusal> fork_run(const std::string& run_dir, const std::string& point,
                                            const std::string& logs_root, RunDisk& disk = posix_run_disk());

/// Makes the worktree of a fork whose intent is still there (invariant 2); nullopt when
/// `run_dir` holds none. The caller holds the run's lock. Throws std::runtime_error.
std::optional<ForkDone> finish_fork(const std::string& run_dir, RunDisk& disk);

/// What a run directory's next user does first: finishes a fork or a rewind a killed process left
/// half-made (run_fork.h and run_rewind.h, invariant 2 of each). The caller holds the lock.
void finish_run_changes(const std::string& run_dir, RunDisk& disk);

}  // namespace attractor
