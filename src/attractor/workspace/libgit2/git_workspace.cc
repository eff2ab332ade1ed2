#include "attractor/workspace/libgit2/git_workspace.h"

#include <algorithm>
#include <filesystem>
#include <vector>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace attractor {

namespace fs = std::filesystem;

namespace {

constexpr char kCommitName[] = "attractor";
constexpr char kCommitEmail[] = "attractor@localhost";

git::Signature signature_at(std::int64_t timestamp_ms) {
  git_signature* sig = nullptr;
  git::check(git_signature_new(&sig, kCommitName, kCommitEmail, static_cast<git_time_t>(timestamp_ms / 1000), 0),
             "cannot make the commit's signature");
  return git::Signature(sig);
}

/// The repository's index, re-read from its file when that changed (another process, a reset).
git_index* fresh_index(git_repository* repo) {
  git_index* index = nullptr;
  git::check(git_repository_index(&index, repo), "cannot open the worktree's index");
  git_index_free(index);  // the repository keeps its own reference
  git::check(git_index_read(index, 0), "cannot read the worktree's index");
  return index;
}

}  // namespace

GitWorkspace::GitWorkspace(const std::string& worktree, std::string base_commit, bool recover)
    : path_(worktree), base_commit_(std::move(base_commit)) {
  repo_ = git::open(worktree);
  if (recover) remove_stale_locks();
}

void GitWorkspace::stage_changes(git_index* index) {
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
                  GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
  git_status_list* list = nullptr;
  git::check(git_status_list_new(&list, repo_.get(), &options), "cannot list the worktree's changes");
  git::StatusList owned(list);
  for (std::size_t i = 0; i < git_status_list_entrycount(list); ++i) {
    const git_status_entry* e = git_status_byindex(list, i);
    if (!e->index_to_workdir) continue;
    const char* path = e->index_to_workdir->new_file.path;
    if (e->status & GIT_STATUS_WT_DELETED) {
      git::check(git_index_remove_bypath(index, path), fmt::format("cannot record that {} was removed", path));
    } else if (e->status & (GIT_STATUS_WT_NEW | GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_TYPECHANGE)) {
      git::check(git_index_add_bypath(index, path), fmt::format("cannot add {}", path));
    }
  }
}

bool GitWorkspace::stage_paths(git_index* index, const std::set<std::string>& paths) {
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(fs::path(path_) / path, ec);
    const bool tracked = git_index_get_bypath(index, path.c_str(), 0) != nullptr;
    if (!fs::exists(st)) {
      if (tracked && git_index_remove_bypath(index, path.c_str()) < 0) return false;
      continue;
    }
    if (!fs::is_regular_file(st) && !fs::is_symlink(st)) return false;
    int ignored = 0;
    if (!tracked && (git_ignore_path_is_ignored(&ignored, repo_.get(), path.c_str()) < 0 || ignored)) continue;
    if (git_index_add_bypath(index, path.c_str()) < 0) return false;
  }
  return true;
}

void GitWorkspace::remove_stale_locks() {
  std::error_code ec;
  fs::remove(fs::path(git_repository_path(repo_.get())) / "index.lock", ec);
  const std::string ref = branch_ref();
  if (!ref.empty()) fs::remove(fs::path(git_repository_commondir(repo_.get())) / (ref + ".lock"), ec);
}

std::string GitWorkspace::branch_ref() const {
  git_reference* head = nullptr;
  if (git_reference_lookup(&head, repo_.get(), "HEAD") < 0) return "";
  git::Reference owned(head);
  const char* target = git_reference_symbolic_target(head);
  return target ? target : "";
}

std::string GitWorkspace::head_commit() const {
  git_oid oid;
  git::check(git_reference_name_to_id(&oid, repo_.get(), "HEAD"), "cannot read the worktree's HEAD");
  return git::hex(oid);
}

void GitWorkspace::keep_ref(const std::string& name, const std::string& commit) {
  git::Commit target = git::lookup_commit(repo_.get(), commit);
  git_reference* ref = nullptr;
  git::check(git_reference_create(&ref, repo_.get(), name.c_str(), git_commit_id(target.get()), 1,
                                  "attractor: keep the rewound stages"),
             "cannot write the reference " + name);
  git_reference_free(ref);
}

std::string GitWorkspace::commit_stage(const StageCommit& stage) {
  git_repository* repo = repo_.get();
  git_index* index = fresh_index(repo);
  if (!watch_) watch_ = std::make_unique<ChangeWatch>(path_);
  ChangeWatch::Changes changes = watch_->take();
  if (changes.everything || !stage_paths(index, changes.paths)) stage_changes(index);
  git_oid tree_id;
  git::check(git_index_write_tree(&tree_id, index), "cannot write the stage's tree");
  git::Commit parent = git::lookup_commit(repo, head_commit());
  if (git_oid_equal(&tree_id, git_commit_tree_id(parent.get()))) return "";
  git::check(git_index_write(index), "cannot write the worktree's index");
  git_tree* tree = nullptr;
  git::check(git_tree_lookup(&tree, repo, &tree_id), "cannot read the stage's tree");
  git::Tree owned_tree(tree);
  git::Signature sig = signature_at(stage.timestamp_ms);
  const git_commit* parents[] = {parent.get()};
  git_oid commit_id;
  git::check(git_commit_create(&commit_id, repo, "HEAD", sig.get(), sig.get(), nullptr,
                               stage_commit_message(stage).c_str(), tree, 1, parents),
             fmt::format("cannot commit stage {}", stage.node));
  return git::hex(commit_id);
}

std::string GitWorkspace::changes_since(const std::string& commit) {
  git_repository* repo = repo_.get();
  fresh_index(repo);
  git::Commit c = git::lookup_commit(repo, commit);
  git::Tree tree = git::tree_of(c.get());
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_SHOW_UNTRACKED_CONTENT |
                  GIT_DIFF_SHOW_BINARY;
  git_diff* diff = nullptr;
  git::check(git_diff_tree_to_workdir_with_index(&diff, repo, tree.get(), &options),
             "cannot compare the worktree with commit " + commit);
  git::Diff owned(diff);
  return git::patch_text(diff);
}

void GitWorkspace::reset_to(const std::string& commit) {
  git::Commit c = git::lookup_commit(repo_.get(), commit);
  git_checkout_options checkout = GIT_CHECKOUT_OPTIONS_INIT;
  checkout.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
  git::check(git_reset(repo_.get(), reinterpret_cast<git_object*>(c.get()), GIT_RESET_HARD, &checkout),
             "cannot return the worktree to commit " + commit);
  remove_untracked_files();
  if (watch_) watch_->forget();
}

void GitWorkspace::remove_untracked_files() {
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
  git_status_list* list = nullptr;
  git::check(git_status_list_new(&list, repo_.get(), &options), "cannot list the worktree's untracked files");
  git::StatusList owned(list);
  std::vector<fs::path> parents;
  for (std::size_t i = 0; i < git_status_list_entrycount(list); ++i) {
    const git_status_entry* e = git_status_byindex(list, i);
    if (!(e->status & GIT_STATUS_WT_NEW) || !e->index_to_workdir) continue;
    const fs::path file = fs::path(path_) / e->index_to_workdir->new_file.path;
    std::error_code ec;
    fs::remove(file, ec);
    if (ec) throw git::GitError("cannot remove " + file.string() + ": " + ec.message(), -1);
    for (fs::path dir = file.parent_path(); dir != fs::path(path_) && dir.has_relative_path();
         dir = dir.parent_path()) {
      parents.push_back(dir);
    }
  }
  std::sort(parents.begin(), parents.end(),
            [](const fs::path& a, const fs::path& b) { return a.string().size() > b.string().size(); });
  for (const fs::path& dir : parents) {
    std::error_code ec;
    if (fs::is_directory(dir, ec) && fs::is_empty(dir, ec)) fs::remove(dir, ec);
  }
}

CommitDiff diff_commits(const std::string& repository, const std::string& from, const std::string& to) {
  git::Repository repo = git::open(repository);
  git::Commit a = git::lookup_commit(repo.get(), from);
  git::Commit b = git::lookup_commit(repo.get(), to);
  git::Tree ta = git::tree_of(a.get());
  git::Tree tb = git::tree_of(b.get());
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.flags = GIT_DIFF_SHOW_BINARY;
  git_diff* diff = nullptr;
  git::check(git_diff_tree_to_tree(&diff, repo.get(), ta.get(), tb.get(), &options),
             fmt::format("cannot compare commits {} and {}", from, to));
  git::Diff owned(diff);
  return {git::patch_text(diff), git_diff_num_deltas(diff)};
}

}  // namespace attractor
