#pragma once
/// \file
/// The execution engine (spec §3): INITIALIZE -> EXECUTE -> FINALIZE over a validated graph.
///
/// Traversal follows §3.2 with the decisions of docs/decisions.md: retries re-run RETRY and FAIL unless
/// the failure is terminal; after a FAIL (retries exhausted) only a condition-matching edge, the
/// node's `retry_target` or its `fallback_retry_target` continue the run; goal gates are checked
/// when the exit node is reached (retry target chain: node, node fallback, graph, graph fallback).
/// A checkpoint is written atomically after every node, so `resume()` continues exactly.
///
/// Runaway-loop guard: graph attribute `max_node_executions` caps the total number of node
/// executions of a run; the default is max(1000, 10 x number of nodes). Reaching it ends the run
/// with FAIL naming the most executed nodes.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/run/checkpoint.h"
#include "attractor/run/run_disk.h"
#include "attractor/base/clock.h"
#include "attractor/model/context.h"
#include "attractor/engine/events.h"
#include "attractor/engine/run_budget.h"
#include "attractor/model/graph.h"
#include "attractor/engine/handler.h"
#include "attractor/model/outcome.h"
#include "attractor/engine/retry.h"
#include "attractor/workspace/workspace.h"

namespace attractor {

/// The default interval of StageWaiting events (EngineOptions::waiting_every_ms).
inline constexpr std::int64_t kDefaultWaitingEveryMs = 15'000;

struct EngineOptions {
  std::string run_dir;     ///< the run directory (created when missing)
  std::string graph_path;  ///< recorded in the manifest ("" for graphs built in code)
  std::string graph_sha256;
  /// Recorded in the manifest as `options` (Manifest::options): how the run was started.
  nlohmann::json run_options = nlohmann::json::object();
  Clock* clock = nullptr;  ///< nullptr = the system clock
  UniformRandom random;    ///< jitter source; empty = seeded from the system
  /// Receives every event (the engine also appends them to `{run_dir}/events.jsonl`).
  std::shared_ptr<EventObserver> observer;
  CancelToken cancel;  ///< cancel() (e.g. from SIGINT) stops at a safe point
  /// Why `cancel` fired, asked when the run stops on it: recorded as `reason` in
  /// PipelineInterrupted when not empty (the server says "server shutdown" there).
  std::function<std::string()> interrupt_reason;
  std::int64_t max_node_executions = 0;  ///< 0 = graph attribute or default
  /// Token and cost caps (engine/run_budget.h); unset members fall back to the graph's
  /// `max_total_tokens` / `max_cost`. Its prices also price the usage.
  RunBudget budget;
  bool write_events_file = true;
  /// Attach `{run_dir}/run.log` to the process logger (attractor/base/log.h) while the run goes
  /// on: run start, stages, retries, end, and what the other layers log meanwhile.
  bool write_run_log = true;
  /// Run-directory writes are made by a background thread in order (see write_behind.h), so the
  /// next stage is computed while the previous one's files are synced; false makes them inline.
  bool background_writes = true;
  /// Where the run directory is written and read (it must outlive the engine); nullptr = the real
  /// file system (`posix_run_disk()`). Tests pass an in-memory disk or one that fails on purpose.
  RunDisk* disk = nullptr;
  /// A full `checkpoint.json` snapshot at least every this many saves (0: when the journal
  /// outgrows the snapshot and 64 KiB; docs/run-directory.md, "Checkpoint journal").
  std::size_t snapshot_every = 0;
  /// Every save rewrites `checkpoint.json` while the last snapshot was at most this many bytes
  /// (CheckpointWriter::kRewriteBelowBytes; 0: the journal from the second save on).
  std::size_t checkpoint_rewrite_below = CheckpointWriter::kRewriteBelowBytes;
  /// The run id of a new run ("" = drawn by run(): `<epoch ms>-<6 hex>`); a `worktree` run's
  /// branch is named after it before the engine starts.
  std::string run_id;
  /// The run's worktree (engine/workspace.h); nullptr = an `in-place` run. The engine commits
  /// every stage into it and, on resume, returns it to the checkpoint's last commit, keeping the
  /// interrupted stage's edits as `<node>/interrupted-<N>.patch`. It must outlive the engine.
  Workspace* workspace = nullptr;
  /// Written into the manifest as `workspace` (Manifest::workspace) when it is an object.
  nlohmann::json workspace_record;
  /// While a stage waits on a model or a command (an LLM stage, a tool), StageWaiting is emitted
  /// every this many milliseconds of real time with the time elapsed; 0 = never.
  std::int64_t waiting_every_ms = kDefaultWaitingEveryMs;
};

/// The result of `run` or `resume`.
struct RunResult {
  Outcome outcome;           ///< SUCCESS/PARTIAL_SUCCESS or FAIL
  std::string run_dir;       ///< final run directory (differs after a loop_restart)
  bool interrupted = false;  ///< cancelled; the checkpoint is the last completed node's
  /// Stopped before an LLM stage because the budget was spent (outcome.failure_reason says how
  /// much); the checkpoint's next node is that stage.
  bool budget_exhausted = false;
  Checkpoint checkpoint;  ///< the last checkpoint written
  /// Token usage of every LLM call of the run, including those made before a resume:
  /// {"input_tokens", "output_tokens", "total_tokens", "llm_requests", "llm_stages"} (UsageTally::to_json).
  nlohmann::json usage;
};

class Engine {
 public:
  Engine(const Graph& graph, const HandlerRegistry& registry, EngineOptions options);
  ~Engine();

  /// Creates the run directory, manifest and initial checkpoint, seeds the context with
  /// `initial_context` (an object) and the graph mirrors, then executes from the start node.
  RunResult run(const nlohmann::json& initial_context = nlohmann::json::object());

  /// Continues the run in `options.run_dir` from its checkpoint. A finished run is not re-run:
  /// its recorded result is returned.
  RunResult resume();

  /// The same from `checkpoint`, the run directory's latest, already read by the caller (which
  /// must hold the run lock since reading it: attractor/launch/run_launch.h).
  RunResult resume(Checkpoint checkpoint);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attractor
