#include "attractor/launch/run_point.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "attractor/launch/exit_code.h"
#include "attractor/model/context_keys.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/stage_visits.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// The nodes that have stage folders in `run_dir` (`{node}/` or `{node}.visits/`).
std::set<std::string> nodes_with_folders(RunDisk& disk, const std::string& run_dir) {
  std::set<std::string> nodes;
  for (const std::string& name : disk.list_directory(run_dir)) {
    std::string node = name;
    if (node.ends_with(kStageVisitsSuffix)) node.resize(node.size() - std::string_view(kStageVisitsSuffix).size());
    if (node == "artifacts" || node == "worktree" || !is_identifier(node)) continue;
    if (disk.is_directory(run_path(run_dir, name))) nodes.insert(node);
  }
  return nodes;
}

/// The folders of one node's visits in a run directory.
struct NodeFolders {
  std::string latest;               ///< `{node}`, the latest visit's folder
  std::string visits;               ///< `{node}.visits`
  std::set<std::int64_t> archived;  ///< N of every `{node}.visits/N/`
  bool has_latest = false;
  std::int64_t top = 1;  ///< the visit `{node}/` holds (stage_visits.h, invariants 1 and 2)
};

NodeFolders node_folders(RunDisk& disk, const std::string& run_dir, const std::string& node) {
  NodeFolders f;
  f.latest = node;
  f.visits = node + kStageVisitsSuffix;
  for (const std::string& name : disk.list_directory(run_path(run_dir, f.visits))) {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
    if (ec == std::errc() && end == name.data() + name.size() && n > 0) f.archived.insert(n);
  }
  f.has_latest = disk.is_directory(run_path(run_dir, f.latest));
  f.top = f.archived.empty() ? 1 : *f.archived.rbegin() + 1;
  return f;
}

std::string visit_folder(const NodeFolders& f, std::int64_t visit) { return f.visits + "/" + std::to_string(visit); }

}  // namespace

std::string run_path(const std::string& dir, std::string_view name) { return (fs::path(dir) / name).string(); }

void write_run_file(RunDisk& disk, const std::string& path, const std::string& text) {
  const std::string_view parts[] = {text};
  disk.write_file_atomic(path, parts);
}

void make_run_directory(RunDisk& disk, const std::string& path) {
  if (std::error_code ec = disk.make_directories(path)) {
    throw std::runtime_error("cannot create " + path + ": " + ec.message());
  }
}

std::map<std::string, std::int64_t> completed_visits(const nlohmann::json& checkpoint) {
  std::map<std::string, std::int64_t> visits;
  auto it = checkpoint.find("visit_counts");
  if (it == checkpoint.end() || !it->is_object()) return visits;
  for (const auto& [node, count] : it->items()) {
    if (count.is_number_integer()) visits[node] = count.get<std::int64_t>();
  }
  return visits;
}

std::variant<RunPoint, RunRefusal> find_run_point(RunDisk& disk, const std::string& run_dir, const std::string& text) {
  RunPoint p;
  Checkpoint head;
  try {
    p.manifest = read_manifest(run_dir, disk);
    p.head = read_checkpoint_document(run_dir, disk);
    head = Checkpoint::from_json(p.head);
  } catch (const std::exception& e) {
    return RunRefusal{kExitUsage, e.what()};
  }
  if (!p.manifest.workspace.is_object()) {
    return RunRefusal{kExitUsage, run_dir +
                                      " is an in-place run: only a worktree run can go back to a stage, "
                                      "since only its files are checkpointed (run with --workspace worktree)"};
  }
  try {
    p.plan = WorktreePlan::from_json(p.manifest.workspace);
    p.history = CheckpointHistory::read(run_dir, disk);
  } catch (const std::exception& e) {
    return RunRefusal{kExitUsage, e.what()};
  }
  if (p.history.entries().empty()) {
    return RunRefusal{kExitUsage, run_path(run_dir, std::string(kCheckpointHistoryFile)) +
                                      " is missing: rewind and fork replay it, and only worktree runs started by this "
                                      "version of attractor keep one"};
  }
  const std::vector<bool> usable = p.history.recorded_entries(head.completed_nodes.size());
  auto found = find_stage_point(text, head.completed_nodes, &usable);
  if (auto* refused = std::get_if<std::string>(&found)) return RunRefusal{kExitUsage, *refused};
  p.point = std::get<StagePoint>(found);
  p.name = fmt::format("{}@{}", p.point.node, p.point.visit);
  p.save = *p.history.save_recording(p.point.entry);
  try {
    p.state = p.history.state_at(p.save);
    Checkpoint state = Checkpoint::from_json(p.state);
    if (state.completed_nodes.size() <= p.point.entry || state.completed_nodes[p.point.entry] != p.point.node) {
      throw std::runtime_error("its state after " + p.name + " does not end with that stage");
    }
    p.commit = commit_after(state.completed_commits, state.completed_commits.size(), p.plan.base_commit);
  } catch (const std::exception& e) {
    return RunRefusal{kExitRuntime, run_path(run_dir, std::string(kCheckpointHistoryFile)) + ": " + e.what()};
  }
  return p;
}

void set_state_run_id(nlohmann::json& state, const std::string& run_id) {
  state["run_id"] = run_id;
  if (auto it = state.find("context"); it != state.end() && it->is_object() && it->contains(kRunIdKey)) {
    (*it)[kRunIdKey] = run_id;
  }
}

std::vector<std::string> run_point_names(RunDisk& disk, const std::string& run_dir) {
  try {
    Checkpoint head = load_checkpoint(run_dir, disk);
    const std::vector<bool> usable =
        CheckpointHistory::read(run_dir, disk).recorded_entries(head.completed_nodes.size());
    return stage_point_names(head.completed_nodes, &usable);
  } catch (const std::exception&) {
    return {};
  }
}

RunRefusal busy_refusal(RunDisk& disk, const std::string& run_dir, const std::string& held, std::string_view doing) {
  std::vector<std::string> points = run_point_names(disk, run_dir);
  return RunRefusal{kExitUsage,
                    fmt::format("{}: stop it before {} (valid points once stopped: {})", held, doing,
                                points.empty() ? "none yet" : fmt::format("{}", fmt::join(points, ", "))),
                    true};
}

std::vector<FolderMove> rewind_moves(RunDisk& disk, const std::string& run_dir,
                                     const std::map<std::string, std::int64_t>& visits, const std::string& archive) {
  std::set<std::string> nodes = nodes_with_folders(disk, run_dir);
  std::vector<FolderMove> moves;
  for (const std::string& node : nodes) {
    auto it = visits.find(node);
    const std::int64_t kept = it == visits.end() ? 0 : it->second;
    NodeFolders f = node_folders(disk, run_dir, node);
    for (std::int64_t n : f.archived) {
      if (n > kept) moves.push_back({visit_folder(f, n), archive + "/" + visit_folder(f, n)});
    }
    bool latest = f.has_latest;
    if (latest && f.top > kept) {
      moves.push_back({f.latest, archive + "/" + f.latest});
      latest = false;
    }
    if (!latest && kept >= 1 && f.archived.contains(kept)) moves.push_back({visit_folder(f, kept), f.latest});
  }
  return moves;
}

std::vector<FolderMove> fork_copies(RunDisk& disk, const std::string& run_dir,
                                    const std::map<std::string, std::int64_t>& visits) {
  std::vector<FolderMove> copies;
  for (const auto& [node, kept] : visits) {
    if (kept < 1) continue;
    NodeFolders f = node_folders(disk, run_dir, node);
    for (std::int64_t n = 1; n <= kept; ++n) {
      std::string from;
      if (f.has_latest && n == f.top) {
        from = f.latest;
      } else if (f.archived.contains(n)) {
        from = visit_folder(f, n);
      } else {
        continue;
      }
      copies.push_back({from, n == kept ? f.latest : visit_folder(f, n)});
    }
  }
  return copies;
}

}  // namespace attractor
