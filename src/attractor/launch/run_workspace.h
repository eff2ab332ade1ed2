#pragma once
/// \file
/// Where a run's stages change files (docs/workspace.md): `in-place`, the working directory
/// itself, or `worktree`, a git worktree of the run's own. The launch plans a worktree run's
/// worktree while it checks the pipeline, before anything changes; `execute_run` makes it once
/// the run directory is locked, and reopens it on resume.

#include <memory>
#include <optional>
#include <string>

#include "attractor/launch/run_launch.h"
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

/// The worktree of `prepared` opened for `execute_run` (made first for a fresh run), through the
/// git module: nullptr for an `in-place` run. Throws std::runtime_error when git refuses.
std::unique_ptr<Workspace> open_run_workspace(const LaunchRequest& request, const PreparedRun& prepared);

/// One line for the console and `status`: "worktree DIR on branch B (from BASE at COMMIT)" or
/// "in-place (DIR)".
std::string describe_workspace(const nlohmann::json& record, const std::string& in_place_dir);

}  // namespace attractor
