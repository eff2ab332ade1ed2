#pragma once
/// \file
/// `attractor rewind RUN_DIR --to NODE[@VISIT]` (docs/workspace.md, section 6): a worktree run's
/// state and files go back to just after a completed stage, so `attractor resume` continues from
/// there. Nothing is deleted: the later stages' folders move to `{run_dir}/rewound-N/` with the
/// checkpoint, history and uncommitted edits the run had, and the branch's commits stay
/// reachable from `refs/attractor/rewound/<run-id>/N`.
///
/// Invariants (the steps are in docs/workspace.md, 6.2):
///   1. Until `rewind.json` (the intent) is written, only `rewound-N/` has been written: a kill
///      leaves the run as it was, beside a folder of copies.
///   2. Once the intent is written, every step after it is one that can be made again, and the
///      intent is removed only after the last: whoever next takes the run (another `rewind`, a
///      `fork`, a `resume`) finishes it first, so a half-made rewind is never resumed.
///   3. The journal is removed before the rewound checkpoint is written, so its records (of the
///      later stages) are never replayed on the rewound state.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "attractor/launch/run_workspace.h"
#include "attractor/run/posix_run_disk.h"

namespace attractor {

/// The intent's file name inside a run directory.
inline constexpr char kRewindIntentFile[] = "rewind.json";
/// The prefix of the folders rewinds keep the later stages in: `rewound-1`, `rewound-2`, ...
inline constexpr char kRewoundFolderPrefix[] = "rewound-";

/// What a rewind did.
struct RewindDone {
  std::string point;  ///< `NODE@VISIT`
  std::int64_t number = 0;
  std::string archive;          ///< `{run_dir}/rewound-N`
  std::string ref;              ///< `refs/attractor/rewound/<run-id>/N`, at the branch's old head
  std::string old_head;         ///< the commit the branch was at before
  std::string commit;           ///< the commit the branch and worktree are at now
  std::string next_node;        ///< where `resume` continues
  std::size_t moved = 0;        ///< stage folders moved into the archive
  nlohmann::json visit_counts;  ///< the rewound state's `visit_counts`
};

/// Rewinds the worktree run at `run_dir` to just after the stage `point` names, holding the run's
/// lock. Refused (exit 2, with the valid points) when the run is running, is in-place, or the
/// point is not one of its completed stages; exit 3 when git or the disk fails.
std::variant<RewindDone, RunRefusal> rewind_run(const std::string& run_dir, const std::string& point,
                                                RunDisk& disk = posix_run_disk());

/// Finishes a rewind a killed process left half-made (invariant 2); nullopt when `run_dir` holds
/// no intent. The caller holds the run's lock. Throws std::runtime_error.
std::optional<RewindDone> finish_rewind(const std::string& run_dir, RunDisk& disk);

/// The reference that keeps rewind `number`'s commits of run `run_id`.
std::string rewound_ref_name(const std::string& run_id, std::int64_t number);

}  // namespace attractor
