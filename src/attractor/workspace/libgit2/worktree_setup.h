#pragma once
/// \file
/// Making a `worktree` run's worktree with libgit2 (docs/workspace.md): every check first,
/// changing nothing, then the branch `attractor/<run-id>` from the checkout's HEAD and the
/// worktree `{run_dir}/worktree` on it.

#include <string>
#include <variant>

#include "attractor/workspace/worktree_plan.h"

namespace attractor {

/// Checks that a worktree for run `run_id` can be made from the git checkout holding `source`
/// into `{run_dir}/worktree`, reading only: the checkout exists, is not bare, has a branch
/// checked out with at least one commit, that branch is not another run's, no git process holds
/// its locks, no tracked file has uncommitted changes (untracked files are fine: they are not
/// carried over), and the branch, worktree name and path are free. Returns the plan, or the
/// one-line reason it is refused.
std::variant<WorktreePlan, std::string> plan_worktree(const std::string& source, const std::string& run_dir,
                                                      const std::string& run_id);

/// Makes the branch and the worktree of `plan`, checked out from `base_commit`, or from
/// `start_commit` when it is set: a fork (docs/workspace.md, "Fork"), which may be finished again
/// after a kill, so a branch and a valid worktree of the plan already there are taken as they
/// are. Throws git::GitError; a branch it made before failing is removed again.
void create_worktree(const WorktreePlan& plan, const std::string& start_commit = "");

}  // namespace attractor
