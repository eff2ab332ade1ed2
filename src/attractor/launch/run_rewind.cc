#include "attractor/launch/run_rewind.h"

#include <filesystem>

#include <fmt/format.h>

#include "attractor/base/clock.h"
#include "attractor/engine/event_names.h"
#include "attractor/engine/events.h"
#include "attractor/launch/exit_code.h"
#include "attractor/launch/run_fork.h"
#include "attractor/launch/run_point.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/checkpoint_journal.h"
#include "attractor/workspace/git_module.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The first N for which `{run_dir}/rewound-N` does not exist.
std::int64_t free_archive_number(RunDisk& disk, const std::string& run_dir) {
  std::int64_t n = 1;
  while (disk.exists(run_path(run_dir, kRewoundFolderPrefix + std::to_string(n)))) ++n;
  return n;
}

std::unique_ptr<Workspace> open_worktree(const WorktreePlan& plan) {
  return GitModule::get().open_workspace(plan.worktree, plan.base_commit, true);
}

/// Invariant 1: copies of what the run holds now, into the new archive folder.
void keep_head(RunDisk& disk, const std::string& run_dir, const std::string& archive, const RunPoint& p,
               Workspace& worktree, const std::string& old_head) {
  make_run_directory(disk, archive);
  write_run_file(disk, run_path(archive, "checkpoint.json"), p.head.dump() + "\n");
  const std::string history = run_path(run_dir, kCheckpointHistoryFile);
  if (disk.exists(history)) write_run_file(disk, run_path(archive, kCheckpointHistoryFile), disk.read_file(history));
  if (std::string edits = worktree.changes_since(old_head); !edits.empty()) {
    write_run_file(disk, run_path(archive, "uncommitted.patch"), edits);
  }
}

/// The run's history cut back to the rewound state's save.
std::string history_through(RunDisk& disk, const std::string& run_dir, std::uint64_t seq) {
  CheckpointHistory history = CheckpointHistory::read(run_dir, disk);
  const auto& entries = history.entries();
  std::size_t keep = 0;
  while (keep < entries.size() && entries[keep].seq <= seq) ++keep;
  return keep == 0 ? std::string() : history.text_through(keep - 1);
}

/// Appends RunRewound to the run's events, unless a finished earlier try of this rewind did.
void record_rewind(RunDisk& disk, const std::string& run_dir, const RewindDone& done) {
  const std::string path = run_path(run_dir, "events.jsonl");
  if (disk.exists(path)) {
    const std::string events = disk.read_file(path);
    const std::size_t last = events.rfind('\n', events.size() > 1 ? events.size() - 2 : 0);
    const std::string tail = events.substr(last == std::string::npos ? 0 : last + 1);
    if (tail.find(fmt::format("\"event\":\"{}\"", kRunRewoundEvent)) != std::string::npos &&
        tail.find(fmt::format("\"number\":{},", done.number)) != std::string::npos) {
      return;
    }
  }
  Event e;
  e.name = kRunRewoundEvent;
  e.timestamp_ms = system_clock().now_ms();
  e.fields = {{"to", done.point},
              {"number", done.number},
              {"archive", fs::path(done.archive).filename()},
              {"ref", done.ref},
              {"old_head", done.old_head},
              {"commit", done.commit},
              {"next_node", done.next_node},
              {"moved", done.moved},
              {"visit_counts", done.visit_counts}};
  if (auto file = open_record_append(disk, path)) file->append(e.to_json_line());
}

/// The steps after the intent (invariant 2), on `worktree` when the caller has it open.
RewindDone finish(const std::string& run_dir, const json& intent, RunDisk& disk,
                  std::unique_ptr<Workspace> worktree = nullptr) {
  RewindDone done;
  done.point = intent.at("point").get<std::string>();
  done.number = intent.at("number").get<std::int64_t>();
  done.archive = run_path(run_dir, kRewoundFolderPrefix + std::to_string(done.number));
  done.old_head = intent.at("old_head").get<std::string>();
  done.commit = intent.at("commit").get<std::string>();
  const json& state = intent.at("state");
  Checkpoint rewound = Checkpoint::from_json(state);
  done.next_node = rewound.next_node;
  done.visit_counts = state.value("visit_counts", json::object());
  done.ref = rewound_ref_name(rewound.run_id, done.number);
  if (!worktree) worktree = open_worktree(WorktreePlan::from_json(read_manifest(run_dir, disk).workspace));
  worktree->keep_ref(done.ref, done.old_head);
  const std::string archive_name = fs::path(done.archive).filename().string();
  for (const FolderMove& move : rewind_moves(disk, run_dir, completed_visits(state), archive_name)) {
    make_run_directory(disk, fs::path(run_path(run_dir, move.to)).parent_path().string());
    disk.rename(run_path(run_dir, move.from), run_path(run_dir, move.to));
    ++done.moved;
  }
  disk.remove_file(run_path(run_dir, kCheckpointJournalFile));
  write_run_file(disk, run_path(run_dir, kCheckpointHistoryFile), history_through(disk, run_dir, rewound.journal_seq));
  save_checkpoint(rewound, run_dir, disk);
  worktree->reset_to(done.commit);
  record_rewind(disk, run_dir, done);
  disk.remove_file(run_path(run_dir, kRewindIntentFile));
  return done;
}

std::variant<RewindDone, RunRefusal> rewind_locked(const std::string& run_dir, const std::string& text, RunDisk& disk) {
  finish_run_changes(run_dir, disk);
  auto found = find_run_point(disk, run_dir, text);
  if (auto* refused = std::get_if<RunRefusal>(&found)) return *refused;
  RunPoint& p = std::get<RunPoint>(found);
  std::unique_ptr<Workspace> worktree = open_worktree(p.plan);
  const std::string old_head = worktree->head_commit();
  const std::int64_t number = free_archive_number(disk, run_dir);
  keep_head(disk, run_dir, run_path(run_dir, kRewoundFolderPrefix + std::to_string(number)), p, *worktree, old_head);
  set_state_run_id(p.state, p.head.value("run_id", std::string()));
  json intent = {{"point", p.name},
                 {"number", number},
                 {"old_head", old_head},
                 {"commit", p.commit},
                 {"state", std::move(p.state)}};
  write_run_file(disk, run_path(run_dir, kRewindIntentFile), intent.dump() + "\n");
  return finish(run_dir, intent, disk, std::move(worktree));
}

}  // namespace

std::string rewound_ref_name(const std::string& run_id, std::int64_t number) {
  return fmt::format("refs/attractor/rewound/{}/{}", run_id, number);
}

std::optional<RewindDone> finish_rewind(const std::string& run_dir, RunDisk& disk) {
  const std::string path = run_path(run_dir, kRewindIntentFile);
  if (!disk.exists(path)) return std::nullopt;
  json intent;
  try {
    intent = json::parse(disk.read_file(path));
    return finish(run_dir, intent, disk);
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

std::variant<RewindDone, RunRefusal> rewind_run(const std::string& run_dir, const std::string& point, RunDisk& disk) {
  return under_run_lock<RewindDone>(disk, run_dir, "rewinding", [&] { return rewind_locked(run_dir, point, disk); });
}

}  // namespace attractor
