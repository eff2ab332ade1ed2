#include "attractor/launch/run_fork.h"

#include <filesystem>

#include <fmt/format.h>

#include "attractor/base/clock.h"
#include "attractor/engine/event_names.h"
#include "attractor/engine/events.h"
#include "attractor/launch/existing_run.h"
#include "attractor/launch/exit_code.h"
#include "attractor/launch/run_point.h"
#include "attractor/launch/run_rewind.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/run_lock.h"
#include "attractor/workspace/git_module.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Copies the file or folder `from` to `to` through `disk`.
void copy_tree(RunDisk& disk, const std::string& from, const std::string& to) {
  if (!disk.is_directory(from)) {
    disk.write_file(to, disk.read_file(from));
    return;
  }
  make_run_directory(disk, to);
  for (const std::string& name : disk.list_directory(from)) copy_tree(disk, run_path(from, name), run_path(to, name));
}

/// The fork's worktree: the original's, for the new run's directory, id and branch.
WorktreePlan fork_plan(const WorktreePlan& original, const std::string& run_dir, const std::string& run_id) {
  WorktreePlan plan = original;
  plan.worktree = run_path(run_dir, "worktree");
  plan.worktree_name = run_worktree_name(run_id);
  plan.branch = run_branch_name(run_id);
  return plan;
}

/// Where the fork goes, or why it cannot go there.
std::variant<std::string, RunRefusal> fork_directory(RunDisk& disk, const RunPoint& p, const std::string& run_dir,
                                                     const std::string& logs_root, std::int64_t now_ms,
                                                     const std::string& hex) {
  if (logs_root.empty()) {
    const std::string name = p.manifest.name.empty() ? "run" : p.manifest.name;
    return run_path(fs::absolute(run_dir).lexically_normal().parent_path().string(),
                    run_directory_name(name, now_ms, hex));
  }
  const std::string dir = fs::absolute(logs_root).lexically_normal().string();
  if (std::string content = run_content_of(disk, dir); !content.empty()) {
    return RunRefusal{kExitUsage,
                      fmt::format("{} already holds a run (its {}); nothing was written: give --logs-root a "
                                  "new or empty directory for the fork",
                                  dir, content)};
  }
  if (!disk.list_directory(dir).empty()) {
    return RunRefusal{kExitUsage, dir + " is not empty: give --logs-root a new or empty directory for the fork"};
  }
  return dir;
}

/// Invariant 1: the new run directory, assembled at `temp`.
void assemble_fork(RunDisk& disk, const RunPoint& p, const std::string& run_dir, const std::string& temp,
                   const std::string& final_dir, const ForkDone& done, std::int64_t now_ms) {
  make_run_directory(disk, temp);
  for (const FolderMove& copy : fork_copies(disk, run_dir, completed_visits(p.state))) {
    copy_tree(disk, run_path(run_dir, copy.from), run_path(temp, copy.to));
  }
  if (disk.is_directory(run_path(run_dir, "artifacts")))
    copy_tree(disk, run_path(run_dir, "artifacts"), run_path(temp, "artifacts"));
  Manifest manifest = p.manifest;
  manifest.run_id = done.run_id;
  manifest.start_time = format_iso8601(now_ms);
  manifest.workspace = fork_plan(p.plan, final_dir, done.run_id).to_json();
  manifest.forked_from = {{"run_dir", fs::absolute(run_dir).lexically_normal().string()},
                          {"run_id", p.head.value("run_id", std::string())},
                          {"point", done.point},
                          {"commit", done.commit}};
  write_manifest(manifest, temp, disk);
  write_run_file(disk, run_path(temp, kCheckpointHistoryFile), p.history.text_through(p.save));
  json state = p.state;
  set_state_run_id(state, done.run_id);
  save_checkpoint(Checkpoint::from_json(state), temp, disk);
  Event e;
  e.name = kRunForkedEvent;
  e.timestamp_ms = now_ms;
  e.fields = {{"from_run_dir", manifest.forked_from["run_dir"]},
              {"from_run_id", manifest.forked_from["run_id"]},
              {"at", done.point},
              {"commit", done.commit},
              {"next_node", done.next_node}};
  write_run_file(disk, run_path(temp, "events.jsonl"), e.to_json_line());
  write_run_file(disk, run_path(temp, kForkIntentFile),
                 json{{"commit", done.commit}, {"point", done.point}}.dump() + "\n");
}

std::variant<ForkDone, RunRefusal> fork_locked(const std::string& run_dir, const std::string& text,
                                               const std::string& logs_root, RunDisk& disk) {
  finish_run_changes(run_dir, disk);
  auto found = find_run_point(disk, run_dir, text);
  if (auto* refused = std::get_if<RunRefusal>(&found)) return *refused;
  const RunPoint& p = std::get<RunPoint>(found);
  const std::int64_t now_ms = system_clock().now_ms();
  const std::string hex = random_hex6();
  auto where = fork_directory(disk, p, run_dir, logs_root, now_ms, hex);
  if (auto* refused = std::get_if<RunRefusal>(&where)) return *refused;
  ForkDone done;
  done.run_dir = std::get<std::string>(where);
  done.run_id = new_run_id(now_ms, hex);
  done.branch = run_branch_name(done.run_id);
  done.point = p.name;
  done.commit = p.commit;
  done.next_node = p.state.value("next_node", std::string());
  const fs::path final_path(done.run_dir);
  const std::string temp = run_path(final_path.parent_path().string(),
                                    "." + final_path.filename().string() + ".fork-" + hex);
  assemble_fork(disk, p, run_dir, temp, done.run_dir, done, now_ms);
  disk.rename(temp, done.run_dir);
  RunLock lock(done.run_dir);
  finish_fork(done.run_dir, disk);
  return done;
}

}  // namespace

std::optional<ForkDone> finish_fork(const std::string& run_dir, RunDisk& disk) {
  const std::string path = run_path(run_dir, kForkIntentFile);
  if (!disk.exists(path)) return std::nullopt;
  try {
    json intent = json::parse(disk.read_file(path));
    Manifest manifest = read_manifest(run_dir, disk);
    WorktreePlan plan = WorktreePlan::from_json(manifest.workspace);
    ForkDone done;
    done.run_dir = run_dir;
    done.run_id = manifest.run_id;
    done.branch = plan.branch;
    done.point = intent.at("point").get<std::string>();
    done.commit = intent.at("commit").get<std::string>();
    const GitModule& git = GitModule::get();
    git.create_worktree(plan, done.commit);
    git.open_workspace(plan.worktree, plan.base_commit, true)->reset_to(done.commit);
    disk.remove_file(path);
    return done;
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

void finish_run_changes(const std::string& run_dir, RunDisk& disk) {
  finish_fork(run_dir, disk);
  finish_rewind(run_dir, disk);
}

std::variant<ForkDone, RunRefusal> fork_run(const std::string& run_dir, const std::string& point,
                                            const std::string& logs_root, RunDisk& disk) {
  return under_run_lock<ForkDone>(disk, run_dir, "forking",
                                  [&] { return fork_locked(run_dir, point, logs_root, disk); });
}

}  // namespace attractor
