#pragma once
/// \file
/// The record of a `worktree` run's worktree (docs/workspace.md): where it is, which branch it is
/// on and which commit that branch started from. It goes into the run's manifest (`workspace`);
/// the git module (git_module.h) plans and makes it.

#include <string>

#include <nlohmann/json.hpp>

namespace attractor {

/// A run's worktree, planned or made: the manifest's `workspace` member.
struct WorktreePlan {
  std::string repository;     ///< the user's checkout: the root of its working tree (absolute)
  std::string source;         ///< the directory the run was started for, inside `repository`
  std::string worktree;       ///< `{run_dir}/worktree`, absolute
  std::string subdir;         ///< `source` relative to `repository` ("" at its root)
  std::string worktree_name;  ///< under the repository's `worktrees/`: `attractor-<run-id>`
  std::string branch;         ///< `attractor/<run-id>`
  std::string base_commit;    ///< the checkout's HEAD when the run started
  std::string base_branch;    ///< the branch checked out there, e.g. `main`

  /// Where the run's stages work: `worktree`/`subdir`.
  std::string workdir() const;
  nlohmann::json to_json() const;
  /// Throws std::runtime_error naming the member that is missing or not a string.
  static WorktreePlan from_json(const nlohmann::json& json);
};

/// The prefix of every run branch.
inline constexpr char kRunBranchPrefix[] = "attractor/";

/// The branch of run `run_id`: `attractor/<run-id>`.
std::string run_branch_name(const std::string& run_id);

/// The git name of run `run_id`'s worktree (under the repository's `worktrees/`): `attractor-<run-id>`.
std::string run_worktree_name(const std::string& run_id);

}  // namespace attractor
