#pragma once
/// \file
/// Where a run's stages change files (docs/workspace.md): `in-place`, the working directory
/// itself, or `worktree`, a git worktree of the run's own. The launch plans a worktree run's
/// worktree while it checks the pipeline, before anything changes; `execute_run` makes it once
/// the run directory is locked, and reopens it on resume.

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "attractor/launch/run_launch.h"
#include "attractor/launch/run_summary.h"
#include "attractor/workspace/workspace.h"

namespace attractor {

inline constexpr char kWorkspaceWorktree[] = "worktree";
inline constexpr char kWorkspaceInPlace[] = "in-place";

/// A new run's workspace mode: `--workspace`, else the graph's `workspace`, else `in-place`.
std::string workspace_mode(const RunFlags& flags, const Graph& graph);

/// For a fresh `worktree` run: draws its run id (and run directory) when the request has none and
/// plans its worktree, setting `request.workdir` to the worktree's; for a resumed one, checks that
/// the manifest's worktree is still there. Returns the refusal when one of them cannot be (exit
/// 2), or when the git module cannot be loaded (exit 3).
std::optional<LaunchFailure> plan_run_workspace(LaunchRequest& request, PreparedRun& prepared);

/// The directory the run's stages would work in without a worktree: `request.workdir`, else the
/// current directory.
std::string requested_workdir(const LaunchRequest& request);

/// The manifest record of `prepared`'s worktree; null for an `in-place` run.
nlohmann::json planned_workspace(const PreparedRun& prepared);

/// The worktree of `prepared` opened for `execute_run` (made first for a fresh run), through the
/// git module: nullptr for an `in-place` run. Throws std::runtime_error when git refuses.
std::unique_ptr<Workspace> open_run_workspace(const LaunchRequest& request, const PreparedRun& prepared);

/// The change of a whole worktree run (its base commit to its last stage commit), through the
/// git module. Throws std::runtime_error (ModuleLoadError, a commit git cannot find).
CommitDiff run_change(const WorktreePlan& plan, const std::vector<std::string>& commits);

/// The change of the stage at `entry` of `commits`: its commit against the commit before it;
/// empty when the stage changed nothing. Throws like run_change.
CommitDiff stage_change(const WorktreePlan& plan, const std::vector<std::string>& commits, std::size_t entry);

/// Why a command on a worktree run's history (`diff`, `rewind`, `fork`) does nothing: `exit_code`
/// kExitUsage (not a worktree run, no such stage, an unreadable run directory, a running run) or
/// kExitRuntime (git or the disk failed), and the one-line message.
struct RunRefusal {
  int exit_code = kExitUsage;
  std::string message;
  bool busy = false;  ///< refused because another process is running the run
};

/// The change of the worktree run at `run_dir`: the whole run when `stage` is "", else the stage
/// `stage` names (`NODE[@VISIT]`, stage_point.h). What `attractor diff` prints and the server's
/// `GET /pipelines/{id}/diff` returns.
std::variant<CommitDiff, RunRefusal> run_dir_diff(const std::string& run_dir, const std::string& stage);

/// Sets `summary.changed_files` of a worktree run (files its branch changed since the base
/// commit); leaves it unset for an in-place run or when git cannot say.
void add_workspace_changes(RunSummary& summary);

/// One line for the console and `status`: "worktree DIR on branch B (from BASE at COMMIT)" or
/// "in-place (DIR)".
std::string describe_workspace(const nlohmann::json& record, const std::string& in_place_dir);

}  // namespace attractor
