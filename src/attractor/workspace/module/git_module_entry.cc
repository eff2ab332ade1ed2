// The entry point of libattractor_git.so (workspace/git_module_abi.h): the table of libgit2's
// worktree functions. The only symbol the module exports.

#include <memory>

#include "attractor/workspace/git_module_abi.h"
#include "attractor/workspace/libgit2/git_workspace.h"
#include "attractor/workspace/libgit2/worktree_setup.h"

namespace {

std::unique_ptr<attractor::Workspace> open_workspace(const std::string& worktree, const std::string& base_commit,
                                                     bool recover) {
  return std::make_unique<attractor::GitWorkspace>(worktree, base_commit, recover);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const attractor::ModuleHeader* attractor_git_module() {
  static const attractor::GitModuleTable table{
      {attractor::kGitModuleAbiVersion, attractor::git_module_layout()},
      &attractor::plan_worktree,
      &attractor::create_worktree,
      &open_workspace,
      &attractor::diff_commits,
  };
  return &table.header;
}
