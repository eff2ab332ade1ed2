#pragma once
/// \file
/// The files a run's stages work on, seen from the engine (docs/workspace.md): in a `worktree`
/// run, a git worktree on a branch of the run's own, where the engine commits every stage that
/// changed files and which it returns to the last checkpoint's commit before a resume continues.
/// The engine knows only this interface; the git module (git_module.h) implements it with
/// libgit2, and an `in-place` run has none.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attractor {

/// What the commit of one stage names (docs/workspace.md, "The commit of a stage").
struct StageCommit {
  std::string run_id;
  std::string node;
  std::int64_t visit = 0;  ///< 1 for the node's first execution
  std::string status;      ///< the stage's outcome: "success", "fail", ...
  /// The journal sequence number of the checkpoint that records the stage (Checkpoint::journal_seq).
  std::uint64_t checkpoint_seq = 0;
  std::int64_t timestamp_ms = 0;  ///< the commit's author and committer time
};

/// The message of a stage's commit: subject `<node>: <status>` (`(visit N)` after the node from
/// the second visit on), a blank line, then the trailers `Attractor-Run`, `Attractor-Node`,
/// `Attractor-Visit` and `Attractor-Checkpoint` (docs/workspace.md, "The commit of a stage").
std::string stage_commit_message(const StageCommit& stage);

/// The commit a worktree run's files stood at after its first `entries` completed stages: the
/// last non-empty one of `commits[0, entries)` (a checkpoint's `completed_commits`), else
/// `base_commit`.
std::string commit_after(const std::vector<std::string>& commits, std::size_t entries, const std::string& base_commit);

/// The change between two commits: its unified diff and the number of files it touches.
struct CommitDiff {
  std::string patch;
  std::size_t files = 0;
};

/// A run's worktree. Every method throws std::runtime_error when git refuses.
class Workspace {
 public:
  virtual ~Workspace() = default;
  /// Commits every change of the worktree since the branch's last commit (new, changed and
  /// deleted files; ignored files excepted) with the message of `stage`; returns the commit's
  /// id, or "" when nothing changed (then nothing is written).
  virtual std::string commit_stage(const StageCommit& stage) = 0;
  /// The worktree's differences from `commit` as a unified diff that `git apply` takes (binary
  /// files included, untracked files as new ones); "" when there are none.
  virtual std::string changes_since(const std::string& commit) = 0;
  /// Moves the run's branch to `commit` and makes the worktree and its index match it exactly:
  /// changed files restored, files `commit` does not have removed (ignored ones kept).
  virtual void reset_to(const std::string& commit) = 0;
  /// The commit the run's branch started from.
  virtual std::string base_commit() const = 0;
  /// The id of the run branch's newest commit.
  virtual std::string head_commit() const = 0;
  /// Points the reference `name` (`refs/...`) of the worktree's repository at `commit`, made or
  /// moved: how rewind keeps the commits it takes off the branch (docs/workspace.md).
  virtual void keep_ref(const std::string& name, const std::string& commit) = 0;
};

}  // namespace attractor
