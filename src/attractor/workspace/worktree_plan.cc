#include "attractor/workspace/worktree_plan.h"

#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace attractor {

std::string WorktreePlan::workdir() const {
  return subdir.empty() ? worktree : (std::filesystem::path(worktree) / subdir).string();
}

nlohmann::json WorktreePlan::to_json() const {
  return {{"mode", "worktree"},   {"repository", repository},   {"source", source},
          {"worktree", worktree}, {"subdir", subdir},           {"worktree_name", worktree_name},
          {"branch", branch},     {"base_commit", base_commit}, {"base_branch", base_branch}};
}

WorktreePlan WorktreePlan::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("workspace is not an object");
  auto text = [&j](const char* name) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_string()) throw std::runtime_error(fmt::format("workspace.{} is not a string", name));
    return it->get<std::string>();
  };
  WorktreePlan p;
  p.repository = text("repository");
  p.source = text("source");
  p.worktree = text("worktree");
  p.subdir = text("subdir");
  p.worktree_name = text("worktree_name");
  p.branch = text("branch");
  p.base_commit = text("base_commit");
  p.base_branch = text("base_branch");
  return p;
}

std::string run_branch_name(const std::string& run_id) { return kRunBranchPrefix + run_id; }

std::string run_worktree_name(const std::string& run_id) { return "attractor-" + run_id; }

}  // namespace attractor
