#pragma once
/// \file
/// Earlier visits of a stage. A node entered again (a loop, a retry target, a goal-gate retry)
/// keeps the files of its earlier visits: `{node}/` always holds the latest visit, and when visit
/// N+1 starts, `{node}/` as a whole becomes `{node}.visits/N/` (docs/run-directory.md §2.7).
///
/// Invariants, whatever point the process stops at:
///  1. `{node}.visits/N/` exists only with every file of visit N inside it: the archive is one
///     rename of the directory, so no file is ever moved on its own.
///  2. Archiving visit N again is harmless: when `{node}.visits/N/` exists, what `{node}/` holds
///     (if it exists) belongs to an interrupted later visit and stays where it is (that visit's
///     re-run overwrites it).
///  3. Node ids are identifiers (no `.`), so `{node}.visits` never names another node's folder.

#include <cstdint>
#include <string>

#include "attractor/base/supervised_process.h"
#include "attractor/run/run_disk.h"

namespace attractor {

/// What a stage directory's name gets to name the folder of its earlier visits.
inline constexpr char kStageVisitsSuffix[] = ".visits";

/// The stage's outcome file (docs/run-directory.md §2.5).
inline constexpr char kStageStatusFile[] = "status.json";

/// `{stage_dir}.visits`: the folder of the stage's earlier visits.
std::string stage_visits_folder(const std::string& stage_dir);

/// `{stage_dir}.visits/{visit}`.
std::string stage_visit_dir(const std::string& stage_dir, std::int64_t visit);

/// What archive_stage_visit found.
enum class VisitArchive {
  kNothing,  ///< `stage_dir` was missing: there was nothing to archive
  kMoved,    ///< `stage_dir` is `stage_visit_dir(stage_dir, visit)` now and no longer exists
  kKept,     ///< that folder already existed: `stage_dir`, if any, belongs to a later visit (2.)
};

/// Renames `stage_dir` to `stage_visit_dir(stage_dir, visit)`, keeping the invariants above.
/// Throws std::runtime_error when the folder of visits cannot be made or the rename fails.
VisitArchive archive_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit);

/// Makes `stage_dir` ready for visit `visit` (1, 2, ...) of its node: archives visit `visit - 1`,
/// creates the directory, and when it was there already (an interrupted earlier run of this
/// visit made it) settles its attempts (settle_interrupted_attempts) and removes the
/// `status.json` it left, so the stage starts without one and beside no program of the earlier run. A first visit costs
/// one mkdir; a revisit a stat, a rename and a mkdir. Throws std::runtime_error "cannot create STAGE_DIR: REASON" or
/// when the archive fails.
void open_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit);

/// The prefix of an attempt folder's name inside a stage folder: `attempt-1`, `attempt-2`, ...
inline constexpr char kAttemptFolderPrefix[] = "attempt-";

/// Makes the next attempt folder of `stage_dir`: `attempt-K` for the first K after `last` that
/// does not exist yet, and sets `last` to K. A stage folder left by an interrupted run keeps its
/// attempt folders, so the attempts of the resumed run get new names and no program of the
/// interrupted run can write into them. Throws std::runtime_error "cannot create PATH: REASON".
std::string open_attempt_folder(RunDisk& disk, const std::string& stage_dir, std::int64_t& last);

/// Writes `record` as `{attempt_dir}/process-{pgid}.json`.
void record_attempt_process(RunDisk& disk, const std::string& attempt_dir, const ProcessGroupRecord& record);

/// For every process group recorded in an attempt folder of `stage_dir`: SIGKILLs it if it still
/// runs and waits (up to 5 s) until it is gone. Throws std::runtime_error naming the group and the
/// folder when it does not go away. Unreadable records (a crash while writing one, before the
/// program was let run) are skipped.
void settle_interrupted_attempts(RunDisk& disk, const std::string& stage_dir);

/// Run directories written before `{node}.visits/` kept earlier visits in `{node}/visits/N/`.
/// When `{stage_dir}/visits/` holds nothing but such folders (`N`, or `.N.partial` of an
/// interrupted archive) and `{stage_dir}.visits` does not exist, renames the former to the latter
/// in one step and returns true. A resume calls it for every node visited more than once, before
/// the first stage, so the visit after it archives into the same folder as the earlier ones.
bool adopt_nested_visits(RunDisk& disk, const std::string& stage_dir);

}  // namespace attractor
