#include "attractor/launch/run_workspace.h"

#include <filesystem>

#include <fmt/format.h>

#include "attractor/base/clock.h"
#include "attractor/launch/stage_point.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/run_directory.h"
#include "attractor/workspace/git_module.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

LaunchFailure refusal(std::string message, int exit_code = kExitUsage) {
  LaunchFailure f;
  f.exit_code = exit_code;
  f.messages.push_back(std::move(message));
  return f;
}

/// The node (or graph) whose absolute `workdir` would lead the agent out of the worktree, or "".
std::string absolute_workdir_owner(const Graph& graph) {
  if (fs::path(graph.data().get("workdir")).is_absolute()) return "the graph";
  for (Vertex v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    if (fs::path(node.get("workdir")).is_absolute()) return "node '" + node.id + "'";
  }
  return "";
}

std::optional<LaunchFailure> check_resumed_worktree(LaunchRequest& request, PreparedRun& prepared) {
  const WorktreePlan& plan = *request.worktree;
  std::error_code ec;
  if (!fs::is_directory(plan.worktree, ec)) {
    return refusal(
        fmt::format("the run's worktree {} is missing (its branch {} in {} still holds the committed "
                    "stages): attractor fork the run to continue from a new worktree",
                    plan.worktree, plan.branch, plan.repository));
  }
  prepared.worktree = plan;
  return std::nullopt;
}

}  // namespace

std::string workspace_mode(const RunFlags& flags, const Graph& graph) {
  if (!flags.workspace.empty()) return flags.workspace;
  std::string attr = graph.data().get("workspace");
  return attr.empty() ? kWorkspaceInPlace : attr;
}

std::optional<LaunchFailure> plan_run_workspace(LaunchRequest& request, PreparedRun& prepared) {
  if (request.resumed) {
    if (!request.worktree) return std::nullopt;
    return check_resumed_worktree(request, prepared);
  }
  const std::string mode = workspace_mode(request.flags, prepared.graph());
  if (mode == kWorkspaceInPlace) return std::nullopt;
  if (mode != kWorkspaceWorktree) {
    return refusal(fmt::format("unknown workspace '{}' (expected worktree or in-place)", mode));
  }
  if (std::string owner = absolute_workdir_owner(prepared.graph()); !owner.empty()) {
    return refusal(owner +
                   " sets an absolute workdir, which would leave the run's worktree: make it relative (to the "
                   "directory the run starts in), or run with --workspace in-place");
  }
  if (request.run_id.empty()) request.run_id = new_run_id(system_clock().now_ms());
  const std::string source = requested_workdir(request);
  const GitModule* git = nullptr;
  try {
    git = &GitModule::get();
  } catch (const ModuleLoadError& e) {
    return refusal(std::string("a worktree run needs git: ") + e.what(), kExitRuntime);
  }
  auto plan = git->plan_worktree(source, request.run_dir, request.run_id);
  if (auto* refused = std::get_if<std::string>(&plan)) return refusal(*refused);
  prepared.worktree = std::get<WorktreePlan>(plan);
  request.workdir = prepared.worktree->workdir();
  return std::nullopt;
}

std::string requested_workdir(const LaunchRequest& request) {
  return request.workdir.empty() ? fs::current_path().string() : request.workdir;
}

nlohmann::json planned_workspace(const PreparedRun& prepared) {
  return prepared.worktree ? prepared.worktree->to_json() : nlohmann::json();
}

std::unique_ptr<Workspace> open_run_workspace(const LaunchRequest& request, const PreparedRun& prepared) {
  if (!prepared.worktree) return nullptr;
  const WorktreePlan& plan = *prepared.worktree;
  const GitModule& git = GitModule::get();
  if (!request.resumed) git.create_worktree(plan);
  return git.open_workspace(plan.worktree, plan.base_commit, request.resumed.has_value());
}

CommitDiff run_change(const WorktreePlan& plan, const std::vector<std::string>& commits) {
  const std::string last = commit_after(commits, commits.size(), plan.base_commit);
  if (last == plan.base_commit) return {};
  return GitModule::get().diff_commits(plan.repository, plan.base_commit, last);
}

CommitDiff stage_change(const WorktreePlan& plan, const std::vector<std::string>& commits, std::size_t entry) {
  if (entry >= commits.size() || commits[entry].empty()) return {};
  return GitModule::get().diff_commits(plan.repository, commit_after(commits, entry, plan.base_commit), commits[entry]);
}

std::variant<CommitDiff, RunRefusal> run_dir_diff(const std::string& run_dir, const std::string& stage) {
  Manifest manifest;
  Checkpoint cp;
  try {
    manifest = read_manifest(run_dir);
    cp = load_checkpoint(run_dir);
  } catch (const std::exception& e) {
    return RunRefusal{kExitUsage, e.what()};
  }
  if (!manifest.workspace.is_object()) {
    return RunRefusal{kExitUsage,
                      run_dir + " is an in-place run: its stages commit nothing (run with --workspace worktree)"};
  }
  try {
    WorktreePlan plan = WorktreePlan::from_json(manifest.workspace);
    if (stage.empty()) return run_change(plan, cp.completed_commits);
    auto point = find_stage_point(stage, cp.completed_nodes);
    if (auto* refused = std::get_if<std::string>(&point)) return RunRefusal{kExitUsage, *refused};
    return stage_change(plan, cp.completed_commits, std::get<StagePoint>(point).entry);
  } catch (const std::exception& e) {
    return RunRefusal{kExitRuntime, e.what()};
  }
}

void add_workspace_changes(RunSummary& summary) {
  if (!summary.workspace.is_object()) return;
  try {
    summary.changed_files = run_change(WorktreePlan::from_json(summary.workspace), summary.completed_commits).files;
  } catch (const std::exception&) {
    summary.changed_files.reset();
  }
}

std::string describe_workspace(const nlohmann::json& record, const std::string& in_place_dir) {
  if (!record.is_object()) return fmt::format("in-place ({})", in_place_dir);
  return fmt::format("worktree {} on branch {} (from {} at {})", record.value("worktree", ""),
                     record.value("branch", ""), record.value("base_branch", ""),
                     record.value("base_commit", "").substr(0, 12));
}

}  // namespace attractor
