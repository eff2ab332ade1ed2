#pragma once
/// \file
/// A completed stage of a worktree run to go back to, for `attractor rewind` and `attractor fork`
/// (docs/workspace.md, section 6): the run's state just after that stage, replayed from its
/// checkpoint history (attractor/run/checkpoint_history.h), and the commit its files stood at.
/// Also the stage folders that belong to the visits after it.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/launch/exit_code.h"
#include "attractor/launch/run_workspace.h"
#include "attractor/launch/stage_point.h"
#include "attractor/run/checkpoint_history.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/run_lock.h"
#include "attractor/workspace/worktree_plan.h"

namespace attractor {

/// What `find_run_point` read.
struct RunPoint {
  Manifest manifest;
  WorktreePlan plan;
  nlohmann::json head;   ///< the run's checkpoint as it is (journal replayed)
  StagePoint point;      ///< the stage named
  std::string name;      ///< `NODE@VISIT`
  nlohmann::json state;  ///< the checkpoint just after that stage
  std::size_t save = 0;  ///< its index in `history.entries()`
  CheckpointHistory history;
  std::string commit;  ///< the commit the run's files stood at then
};

/// The point `text` (`NODE[@VISIT]`) of the worktree run at `run_dir`, or the refusal: an
/// unreadable run, an in-place run, a run without history, a node it never completed, a visit it
/// did not reach, a branch of a parallel stage (each with the list of valid points).
std::variant<RunPoint, RunRefusal> find_run_point(RunDisk& disk, const std::string& run_dir, const std::string& text);

/// Makes a state replayed from a history the state of run `run_id` (a fork's history holds its
/// original's id): its `run_id` and the context's `internal.run_id`.
void set_state_run_id(nlohmann::json& state, const std::string& run_id);

/// The points `find_run_point` would take for `run_dir`, as `NODE@VISIT` (empty when it cannot
/// read the run).
std::vector<std::string> run_point_names(RunDisk& disk, const std::string& run_dir);

/// `dir`/`name`.
std::string run_path(const std::string& dir, std::string_view name);
/// Writes `text` to `path` atomically through `disk`.
void write_run_file(RunDisk& disk, const std::string& path, const std::string& text);
/// Makes `path` and its parents through `disk`. Throws std::runtime_error "cannot create PATH: WHY".
void make_run_directory(RunDisk& disk, const std::string& path);

/// The refusal of a command that needs the run to be stopped (exit 2, `busy`): `held` (the lock's
/// message, naming the process) with the points the run has so far, for once it is stopped.
RunRefusal busy_refusal(RunDisk& disk, const std::string& run_dir, const std::string& held, std::string_view doing);

/// Runs `body` holding `run_dir`'s lock (run_lock.h): refused when the directory is missing (exit
/// 2), when another process runs it (busy_refusal, `doing` naming the command: "rewinding"), and
/// when `body` throws (exit 3, its message).
template <typename Done, typename Body>
std::variant<Done, RunRefusal> under_run_lock(RunDisk& disk, const std::string& run_dir, std::string_view doing,
                                              Body&& body) {
  if (!disk.is_directory(run_dir)) return RunRefusal{kExitUsage, run_dir + ": no such run directory"};
  try {
    RunLock lock(run_dir);
    return body();
  } catch (const RunLockBusy& e) {
    return busy_refusal(disk, run_dir, e.what(), doing);
  } catch (const std::exception& e) {
    return RunRefusal{kExitRuntime, e.what()};
  }
}

/// A folder of a run directory (relative to it) and where it goes.
struct FolderMove {
  std::string from;
  std::string to;
};

/// How many visits of each node a checkpoint document has completed (`visit_counts`).
std::map<std::string, std::int64_t> completed_visits(const nlohmann::json& checkpoint);

/// The moves that leave in `run_dir` only the stage folders of the visits `visits` counts: every
/// later visit's folder into `archive` (same relative name), then a node's last kept visit back
/// from `{node}.visits/N/` to `{node}/`. Computed from what the directory holds, so after a move
/// that was made, the list for the same `visits` is the rest of it.
std::vector<FolderMove> rewind_moves(RunDisk& disk, const std::string& run_dir,
                                     const std::map<std::string, std::int64_t>& visits, const std::string& archive);

/// The copies that give a new run directory the stage folders of the visits `visits` counts, as
/// the original would hold them had it stopped there (the last visit in `{node}/`).
std::vector<FolderMove> fork_copies(RunDisk& disk, const std::string& run_dir,
                                    const std::map<std::string, std::int64_t>& visits);

}  // namespace attractor
