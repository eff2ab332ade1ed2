#pragma once
/// \file
/// Where a run stands, read from its run directory alone (manifest, checkpoint, the last events,
/// the run lock), so any process can tell: `attractor runs`, `attractor status` and the server.
///
/// Status, in order of precedence:
///  - `running`: a live process holds `run.lock`;
///  - `completed` / `failed`: the checkpoint's state is success / fail;
///  - `cancelled`: the run ended on SIGINT/SIGTERM or a cancel request (its last event is
///    PipelineInterrupted), except when the event's reason is kInterruptedByShutdown or a human
///    gate's (kInterruptedAtGatePrefix);
///  - `stopped`: the run's budget was spent (BudgetExhausted); resumable with a higher budget;
///  - `interrupted`: anything else that is unfinished: the process died (a crash, SIGKILL, a
///    reboot) and left a stale lock or none, or a write of the run directory failed (the reason
///    is that write's error, or that the directory is not writable now);
///  - `unreadable`: the manifest or checkpoint cannot be read (`error` says why).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor {

/// The `reason` of PipelineInterrupted when the server that ran it stopped: such a run was not
/// cancelled by anyone and shows as `interrupted`.
inline constexpr const char* kInterruptedByShutdown = "server shutdown";
/// The `reason` of the PipelineInterrupted event recorded when a write of the run directory
/// failed (disk full, read-only, no permission; record_write_failure): the run shows as
/// `interrupted`, with the failed write (the event's `error`) as its reason.
/// How the `reason` of PipelineInterrupted begins when a human gate nobody could ask stopped the
/// run (``human gate `review` could not ask: ...``): such a run shows as `interrupted`.
inline constexpr const char* kInterruptedAtGatePrefix = "human gate ";
inline constexpr const char* kInterruptedByWriteFailure = "run directory write failed";

struct RunSummary {
  std::string run_dir;
  std::string status;
  std::string error;  ///< why it is unreadable
  std::string graph;  ///< pipeline name
  std::string graph_path;
  std::string run_id;
  std::string started;  ///< ISO-8601 UTC, from the manifest
  std::int64_t started_ms = 0;
  std::int64_t duration_ms = 0;  ///< until the last checkpoint, or until now while running
  std::string node;              ///< running/unfinished: the next node; finished: the last one
  std::optional<long> pid;       ///< the process running it
  std::vector<std::string> completed_nodes;
  std::vector<std::string> completed_statuses;
  std::vector<std::string> completed_commits;  ///< a worktree run's stage commits (docs/workspace.md)
  nlohmann::json workspace;                    ///< the manifest's `workspace` (null: in-place)
  std::optional<std::size_t> changed_files;    ///< set by add_workspace_changes for a worktree run
  nlohmann::json usage = nlohmann::json::object();
  std::string reason;  ///< failure or stop reason, when there is one

  nlohmann::json to_json() const;
};

/// How much of a run that a live process is running `summarize_run` reads: everything, or only
/// the manifest, the lock and the last event (its checkpoint can be tens of megabytes and is
/// being rewritten): `node` is then the last event's stage, and `usage` and `completed_*` stay
/// empty.
enum class RunningDetail { kFull, kBrief };

/// The summary of the run directory `run_dir`; `now_ms` measures a running run's duration.
RunSummary summarize_run(const std::string& run_dir, std::int64_t now_ms, RunningDetail running = RunningDetail::kFull);

/// The run directories directly under `logs_root` (those with a manifest.json, hidden ones aside), newest first
/// (then by path). A missing root gives none.
std::vector<RunSummary> list_runs(const std::string& logs_root, std::int64_t now_ms,
                                  RunningDetail running = RunningDetail::kFull);

/// True for the events after which a run's process writes nothing more.
bool is_final_event(const std::string& name);

}  // namespace attractor
