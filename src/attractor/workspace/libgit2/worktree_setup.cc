#include "attractor/workspace/libgit2/worktree_setup.h"

#include <filesystem>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "attractor/workspace/libgit2/git.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kDirtyNamesShown = 3;

std::string without_trailing_slash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

/// The tracked paths with uncommitted changes (staged or not) of `repo`.
std::vector<std::string> dirty_tracked_files(git_repository* repo) {
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  git_status_list* list = nullptr;
  git::check(git_status_list_new(&list, repo, &options), "cannot read the checkout's status");
  git::StatusList owned(list);
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < git_status_list_entrycount(list); ++i) {
    const git_status_entry* e = git_status_byindex(list, i);
    if (e->status == GIT_STATUS_CURRENT || (e->status & (GIT_STATUS_IGNORED | GIT_STATUS_WT_NEW))) continue;
    const git_diff_delta* d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
    if (d) paths.push_back(d->old_file.path ? d->old_file.path : d->new_file.path);
  }
  return paths;
}

std::string dirty_message(const std::string& repository, const std::vector<std::string>& paths,
                          const std::string& head) {
  std::string names;
  for (std::size_t i = 0; i < paths.size() && i < kDirtyNamesShown; ++i) names += (i ? ", " : "") + paths[i];
  if (paths.size() > kDirtyNamesShown) names += fmt::format(" and {} more", paths.size() - kDirtyNamesShown);
  return fmt::format(
      "{} has uncommitted changes to tracked files ({}); the run's worktree starts from HEAD ({}) and would not "
      "have them: commit or stash them first, or run with --workspace in-place",
      repository, names, head.substr(0, 12));
}

/// The lock file of a git process working on `git_dir`, or "".
std::string held_lock(const std::string& git_dir, const std::string& common_dir) {
  for (const fs::path& lock :
       {fs::path(git_dir) / "index.lock", fs::path(git_dir) / "HEAD.lock", fs::path(common_dir) / "packed-refs.lock"}) {
    std::error_code ec;
    if (fs::exists(lock, ec)) return lock.string();
  }
  return "";
}

/// The refusal of a checkout whose HEAD cannot start a run, or "".
std::string head_problem(git_repository* repo, const std::string& repository) {
  if (git_repository_head_unborn(repo) == 1) {
    return repository + " has no commit yet (HEAD is unborn): commit something first, or run with --workspace in-place";
  }
  if (git_repository_head_detached(repo) == 1) {
    git_oid oid;
    git::check(git_reference_name_to_id(&oid, repo, "HEAD"), "cannot read HEAD of " + repository);
    return fmt::format(
        "HEAD of {} is detached (at {}): a run's branch starts from a branch; check one out "
        "(git switch NAME, or git switch -c NAME), or run with --workspace in-place",
        repository, git::hex(oid).substr(0, 12));
  }
  return "";
}

}  // namespace

std::variant<WorktreePlan, std::string> plan_worktree(const std::string& source, const std::string& run_dir,
                                                      const std::string& run_id) {
  git::ensure_initialized();
  std::error_code ec;
  const fs::path from = fs::weakly_canonical(fs::absolute(source), ec);
  if (ec || !fs::is_directory(from, ec)) return fmt::format("the working directory {} is not a directory", source);
  git_repository* raw = nullptr;
  if (int rc = git_repository_open_ext(&raw, from.c_str(), 0, nullptr); rc == GIT_ENOTFOUND) {
    return fmt::format(
        "{} is not inside a git repository; a worktree run needs one (git init and a first commit), "
        "or run with --workspace in-place",
        from.string());
  } else {
    git::check(rc, "cannot open the git repository of " + from.string());
  }
  git::Repository repo(raw);
  if (git_repository_is_bare(raw)) {
    return fmt::format("{} is a bare repository: it has no working tree to start a run's worktree from",
                       without_trailing_slash(git_repository_path(raw)));
  }
  WorktreePlan plan;
  plan.repository = without_trailing_slash(git_repository_workdir(raw));
  if (std::string problem = head_problem(raw, plan.repository); !problem.empty()) return problem;
  git_reference* head = nullptr;
  git::check(git_repository_head(&head, raw), "cannot read HEAD of " + plan.repository);
  git::Reference owned_head(head);
  plan.base_branch = git_reference_shorthand(head);
  plan.base_commit = git::hex(*git_reference_target(head));
  if (plan.base_branch.rfind(kRunBranchPrefix, 0) == 0) {
    return fmt::format(
        "{} has the run branch {} checked out, which that run commits to: fork the run instead "
        "(attractor fork), or check out another branch",
        plan.repository, plan.base_branch);
  }
  if (std::string lock = held_lock(git_repository_path(raw), git_repository_commondir(raw)); !lock.empty()) {
    return fmt::format(
        "{} is locked by another git process ({} exists): wait for it to finish, or remove that file "
        "if no git command is running",
        plan.repository, lock);
  }
  if (std::vector<std::string> dirty = dirty_tracked_files(raw); !dirty.empty()) {
    return dirty_message(plan.repository, dirty, plan.base_commit);
  }
  plan.source = from.string();
  plan.subdir = from.lexically_relative(plan.repository).string();
  if (plan.subdir == ".") plan.subdir.clear();
  plan.worktree = (fs::absolute(run_dir).lexically_normal() / "worktree").string();
  plan.branch = run_branch_name(run_id);
  plan.worktree_name = run_worktree_name(run_id);
  git_reference* existing = nullptr;
  if (git_branch_lookup(&existing, raw, plan.branch.c_str(), GIT_BRANCH_LOCAL) == 0) {
    git_reference_free(existing);
    return fmt::format("branch {} exists already in {}", plan.branch, plan.repository);
  }
  git_worktree* wt = nullptr;
  if (git_worktree_lookup(&wt, raw, plan.worktree_name.c_str()) == 0) {
    git_worktree_free(wt);
    return fmt::format("{} has a worktree named {} already", plan.repository, plan.worktree_name);
  }
  if (fs::exists(plan.worktree, ec)) {
    return fmt::format("{} exists already: a run's worktree must be a new directory", plan.worktree);
  }
  return plan;
}

namespace {

/// In a fork being finished again: whether its worktree is there already. What an add that was
/// killed left (metadata that does not validate, or is too incomplete to be looked up, and the
/// worktree's directory) is removed, so the add can run. Both are named after the fork's run id.
bool worktree_already_made(git_repository* repo, const WorktreePlan& plan) {
  git_worktree* existing = nullptr;
  if (git_worktree_lookup(&existing, repo, plan.worktree_name.c_str()) == 0) {
    const bool valid = git_worktree_validate(existing) == 0;
    if (!valid) {
      git_worktree_prune_options prune = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
      prune.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_LOCKED;
      git_worktree_prune(existing, &prune);
    }
    git_worktree_free(existing);
    if (valid) return true;
  }
  std::error_code ec;
  fs::remove_all(plan.worktree, ec);
  fs::remove_all(fs::path(git_repository_commondir(repo)) / "worktrees" / plan.worktree_name, ec);  // an add cut short
  return false;
}

}  // namespace

void create_worktree(const WorktreePlan& plan, const std::string& start_commit) {
  const bool fork = !start_commit.empty();
  git::Repository repo = git::open(plan.repository);
  git::Commit start = git::lookup_commit(repo.get(), fork ? start_commit : plan.base_commit);
  if (fork) {  // the fork's own branch: a lock on it is a killed earlier try's
    std::error_code ec;
    fs::remove(fs::path(git_repository_commondir(repo.get())) / "refs" / "heads" / (plan.branch + ".lock"), ec);
    if (worktree_already_made(repo.get(), plan)) return;
  }
  git_reference* branch = nullptr;
  const bool reused = fork && git_branch_lookup(&branch, repo.get(), plan.branch.c_str(), GIT_BRANCH_LOCAL) == 0;
  if (!reused) {
    git::check(git_branch_create(&branch, repo.get(), plan.branch.c_str(), start.get(), 0),
               "cannot create branch " + plan.branch);
  }
  git::Reference owned(branch);
  git_worktree_add_options options = GIT_WORKTREE_ADD_OPTIONS_INIT;
  options.ref = branch;
  git_worktree* wt = nullptr;
  if (int rc = git_worktree_add(&wt, repo.get(), plan.worktree_name.c_str(), plan.worktree.c_str(), &options); rc < 0) {
    git::GitError error(
        "cannot create the worktree " + plan.worktree + ": " + (git_error_last() ? git_error_last()->message : "error"),
        rc);
    if (!reused) git_branch_delete(branch);
    throw error;
  }
  git_worktree_free(wt);
}

}  // namespace attractor
