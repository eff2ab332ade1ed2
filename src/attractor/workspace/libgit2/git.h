#pragma once
/// \file
/// The few libgit2 handles this layer uses, owned by unique pointers, and its one error
/// convention: every failed libgit2 call becomes a GitError naming what was being done and
/// libgit2's own message.

#include <memory>
#include <stdexcept>
#include <string>

#include <git2.h>

namespace attractor::git {

/// A libgit2 call that failed; `code` is its return value (GIT_ELOCKED, GIT_EEXISTS, ...).
class GitError : public std::runtime_error {
 public:
  GitError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// Initialises libgit2 once per process (thread-safe).
void ensure_initialized();

/// Throws GitError "`doing`: <libgit2 message>" when `rc` is negative; returns `rc` otherwise.
int check(int rc, const std::string& doing);

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};

using Repository = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using Reference = std::unique_ptr<git_reference, Deleter<git_reference, git_reference_free>>;
using Commit = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;
using Tree = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using Index = std::unique_ptr<git_index, Deleter<git_index, git_index_free>>;
using Diff = std::unique_ptr<git_diff, Deleter<git_diff, git_diff_free>>;
using Signature = std::unique_ptr<git_signature, Deleter<git_signature, git_signature_free>>;
using StatusList = std::unique_ptr<git_status_list, Deleter<git_status_list, git_status_list_free>>;
using Worktree = std::unique_ptr<git_worktree, Deleter<git_worktree, git_worktree_free>>;

/// Opens the repository at exactly `path` (a working tree's root or a git directory).
Repository open(const std::string& path);
/// The commit `id` (40 hex digits) of `repo`.
Commit lookup_commit(git_repository* repo, const std::string& id);
/// The tree of `commit`.
Tree tree_of(const git_commit* commit);
/// The 40 hex digits of `oid`.
std::string hex(const git_oid& oid);
/// `diff` as a unified diff (git's patch format).
std::string patch_text(git_diff* diff);

}  // namespace attractor::git
