#pragma once
/// \file
/// The boundary between attractor and its git module (`libattractor_git.so`, built from
/// workspace/libgit2 and workspace/module): the one `extern "C"` symbol the module exports and
/// the versioned table of functions it returns. The loader (git_module.h, over
/// attractor/base/module_loader.h) reads the table's ModuleHeader before anything else, so it
/// stays the first member in every version. C++ values and exceptions cross it as they cross the
/// HTTP module's (http/module_abi.h): the module and the executable come from one build.

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "attractor/base/module_loader.h"
#include "attractor/workspace/workspace.h"
#include "attractor/workspace/worktree_plan.h"

namespace attractor {

/// Bump whenever workspace.h, worktree_plan.h or GitModuleTable change in a way that a module
/// built before the change could misread.
inline constexpr std::uint32_t kGitModuleAbiVersion = 2;
/// The module's file name, looked for next to the executable and in ../lib/attractor/.
inline constexpr const char* kGitModuleFileName = "libattractor_git.so";
/// The name of the module's entry point (a ModuleEntry returning `&table.header`).
inline constexpr const char* kGitModuleEntryName = "attractor_git_module";

/// Sizes of the values that cross the boundary, folded into one number (module_layout).
constexpr std::uint64_t git_module_layout() {
  return module_layout({sizeof(WorktreePlan), sizeof(StageCommit), sizeof(CommitDiff), sizeof(std::string),
                        sizeof(std::unique_ptr<Workspace>)});
}

/// What the module's entry point returns the header of. Static data of the module; never freed.
struct GitModuleTable {
  /// kGitModuleAbiVersion and git_module_layout() of the build that made the module.
  ModuleHeader header;
  /// libgit2/worktree_setup.h, plan_worktree.
  std::variant<WorktreePlan, std::string> (*plan_worktree)(const std::string& source, const std::string& run_dir,
                                                           const std::string& run_id);
  /// libgit2/worktree_setup.h, create_worktree.
  void (*create_worktree)(const WorktreePlan& plan, const std::string& start_commit);
  /// The Workspace of the worktree at `worktree` (libgit2/git_workspace.h, GitWorkspace).
  std::unique_ptr<Workspace> (*open_workspace)(const std::string& worktree, const std::string& base_commit,
                                               bool recover);
  /// libgit2/git_workspace.h, diff_commits.
  CommitDiff (*diff_commits)(const std::string& repository, const std::string& from, const std::string& to);
};

}  // namespace attractor
