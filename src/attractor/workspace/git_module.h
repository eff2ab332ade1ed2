#pragma once
/// \file
/// Loads the git module on first use. libgit2 and what it links (libssh2, OpenSSL's libcrypto,
/// mbedTLS, Kerberos) live in `libattractor_git.so`, so `in-place` runs and every other command
/// start without them; only a `worktree` run (docs/workspace.md), `diff`, `rewind` and `fork` load
/// it. Lookup rule and checks: those of every attractor module (attractor/base/module_loader.h).

#include <filesystem>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "attractor/base/module_loader.h"
#include "attractor/workspace/git_module_abi.h"

namespace attractor {

/// A loaded git module. It stays loaded until the process exits.
class GitModule {
 public:
  /// The process-wide module, loaded on the first call (thread-safe) from the candidates of
  /// /proc/self/exe. Throws ModuleLoadError; a later call tries again.
  static const GitModule& get();
  /// Loads the first of `candidates` that exists. Throws ModuleLoadError.
  static GitModule load(const std::vector<std::filesystem::path>& candidates);
  /// The loader's description of this module.
  static const ModuleSpec& spec();

  /// The plan of a run's worktree, or the one-line reason it is refused; changes nothing.
  std::variant<WorktreePlan, std::string> plan_worktree(const std::string& source, const std::string& run_dir,
                                                        const std::string& run_id) const {
    return table_->plan_worktree(source, run_dir, run_id);
  }
  /// Makes the branch and worktree of `plan`, the branch at `start_commit` ("" = the plan's base
  /// commit). Throws std::runtime_error.
  void create_worktree(const WorktreePlan& plan, const std::string& start_commit = "") const {
    table_->create_worktree(plan, start_commit);
  }
  /// The worktree of a run; with `recover`, stale lock files of a killed process are removed.
  std::unique_ptr<Workspace> open_workspace(const std::string& worktree, const std::string& base_commit,
                                            bool recover) const {
    return table_->open_workspace(worktree, base_commit, recover);
  }
  /// The change from commit `from` to `to` in `repository`. Throws std::runtime_error.
  CommitDiff diff_commits(const std::string& repository, const std::string& from, const std::string& to) const {
    return table_->diff_commits(repository, from, to);
  }
  /// The file that was loaded.
  const std::filesystem::path& path() const { return path_; }

 private:
  GitModule(std::filesystem::path path, const GitModuleTable* table) : path_(std::move(path)), table_(table) {}
  std::filesystem::path path_;
  const GitModuleTable* table_;
};

}  // namespace attractor
