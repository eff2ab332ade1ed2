#pragma once
/// \file
/// The Workspace of a `worktree` run (workspace/workspace.h) on a real git worktree, through
/// libgit2 (docs/decisions.md, "Run commits go through libgit2"). Its commits run no hook, are
/// never signed and carry the identity `attractor <attractor@localhost>`, whatever the user's
/// configuration says, so that configuration can neither break nor slow them.

#include <cstddef>
#include <memory>
#include <set>
#include <string>

#include "attractor/workspace/workspace.h"
#include "attractor/workspace/libgit2/change_watch.h"
#include "attractor/workspace/libgit2/git.h"

namespace attractor {

class GitWorkspace : public Workspace {
 public:
  /// Opens the worktree at `worktree` whose run started from `base_commit`. With `recover`, lock
  /// files an earlier process of the run left behind when it was killed (the worktree's
  /// `index.lock`, the branch's `.lock`) are removed first: only the run that holds the run
  /// lock writes there. Throws git::GitError.
  GitWorkspace(const std::string& worktree, std::string base_commit, bool recover = false);

  std::string commit_stage(const StageCommit& stage) override;
  std::string changes_since(const std::string& commit) override;
  void reset_to(const std::string& commit) override;
  std::string base_commit() const override { return base_commit_; }
  std::string head_commit() const override;
  void keep_ref(const std::string& name, const std::string& commit) override;

  /// The branch the worktree has checked out (`refs/heads/...`).
  std::string branch_ref() const;

 private:
  void remove_stale_locks();
  /// Adds every new and changed file of the worktree to `index` and removes the deleted ones,
  /// from one scan of the worktree (ignored files excepted).
  void stage_changes(git_index* index);
  /// The same for the files `paths` names only (what the change watch saw); false when one of
  /// them is something it cannot stage alone (a directory now, a submodule's file): then scan.
  bool stage_paths(git_index* index, const std::set<std::string>& paths);
  /// Removes the files of the worktree git does not track and does not ignore, then the
  /// directories that held only them.
  void remove_untracked_files();

  std::string path_;
  std::string base_commit_;
  git::Repository repo_;
  /// What changed since the last commit or reset, set up at the first commit (change_watch.h).
  std::unique_ptr<ChangeWatch> watch_;
};

/// The change from commit `from` to commit `to` of the repository at `repository` (a working
/// tree or git directory). Throws git::GitError.
CommitDiff diff_commits(const std::string& repository, const std::string& from, const std::string& to);

}  // namespace attractor
