#include "attractor/workspace/libgit2/git.h"

#include <mutex>

namespace attractor::git {

void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    // A tree's entries are blobs this process just wrote: checking each one exists reopened every
    // object of the worktree per commit.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
    // The user's global and system configuration take no part in a run's commits
    // (docs/workspace.md): the same repository gives the same commits on every machine.
    for (git_config_level_t level :
         {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG, GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA}) {
      git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, "");
    }
  });
}

int check(int rc, const std::string& doing) {
  if (rc >= 0) return rc;
  const git_error* e = git_error_last();
  std::string message = e && e->message ? e->message : "error " + std::to_string(rc);
  throw GitError(doing + ": " + message, rc);
}

Repository open(const std::string& path) {
  ensure_initialized();
  git_repository* repo = nullptr;
  check(git_repository_open_ext(&repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
        "cannot open the git repository " + path);
  return Repository(repo);
}

Commit lookup_commit(git_repository* repo, const std::string& id) {
  git_oid oid;
  check(git_oid_fromstr(&oid, id.c_str()), "not a commit id: " + id);
  git_commit* commit = nullptr;
  check(git_commit_lookup(&commit, repo, &oid), "commit " + id);
  return Commit(commit);
}

Tree tree_of(const git_commit* commit) {
  git_tree* tree = nullptr;
  check(git_commit_tree(&tree, commit), "the tree of commit " + hex(*git_commit_id(commit)));
  return Tree(tree);
}

std::string hex(const git_oid& oid) {
  char text[GIT_OID_HEXSZ + 1];
  git_oid_tostr(text, sizeof text, &oid);
  return text;
}

std::string patch_text(git_diff* diff) {
  git_buf buf = GIT_BUF_INIT;
  check(git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH), "cannot format the diff");
  std::string text(buf.ptr ? buf.ptr : "", buf.size);
  git_buf_dispose(&buf);
  return text;
}

}  // namespace attractor::git
