#pragma once
/// \file
/// Earlier visits of a stage. A node entered again (a loop, a retry target, a goal-gate retry)
/// keeps the files of its earlier visits: `{node}/` always holds the latest visit, and visit N's
/// files move to `{node}/visits/N/` when visit N+1 starts (docs/run-directory.md).
///
/// Invariants, whatever point the process stops at:
///  1. `{node}/visits/N/` exists only once every file of visit N is inside it (the files are moved
///     into `{node}/visits/.N.partial/` first, which is then renamed in one step).
///  2. Archiving visit N again is harmless: when `visits/N/` exists, what `{node}/` holds belongs
///     to an interrupted later visit and stays where it is (that visit's re-run overwrites it); when
///     `visits/.N.partial/` exists, the move goes on where it stopped.

#include <cstdint>
#include <string>

#include "attractor/run/run_disk.h"

namespace attractor {

/// The name of the folder inside a stage directory that holds its earlier visits.
inline constexpr char kStageVisitsFolder[] = "visits";

/// The stage's outcome file (docs/run-directory.md §2.5).
inline constexpr char kStageStatusFile[] = "status.json";

/// `{stage_dir}/visits/{visit}`.
std::string stage_visit_dir(const std::string& stage_dir, std::int64_t visit);

/// What archive_stage_visit found.
enum class VisitArchive {
  kNothing,  ///< `stage_dir` was missing or held nothing but `visits/`
  kMoved,    ///< the files are in `visits/{visit}/` now; `stage_dir` holds only `visits/`
  kKept,     ///< `visits/{visit}/` already existed: the files left belong to a later visit (2.)
};

/// Moves the files of visit `visit` (everything in `stage_dir` but `visits/`) into
/// `stage_visit_dir(stage_dir, visit)`, keeping the invariants above. Nothing happens when
/// `stage_dir` is missing or empty. Throws std::runtime_error when a rename fails.
VisitArchive archive_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit);

/// Makes `stage_dir` ready for visit `visit` (1, 2, ...) of its node: archives visit `visit - 1`,
/// creates the directory when it is missing, and removes a `status.json` that an interrupted
/// earlier run of this visit left behind, so the stage starts without one. A first visit into a
/// new directory costs one mkdir; a revisit, the archive's moves. Throws std::runtime_error
/// "cannot create STAGE_DIR: REASON" or when a move fails.
void open_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit);

}  // namespace attractor
