#pragma once
/// \file
/// Private to the engine: the state of one run and the pieces shared by engine.cc (traversal,
/// checkpointing, resume) and engine_stage.cc (attempts, retries, status files, branches).

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "attractor/base/log.h"
#include "attractor/run/artifact_store.h"
#include "attractor/run/attempt_folders.h"
#include "attractor/engine/engine.h"
#include "attractor/engine/usage_tally.h"
#include "attractor/model/fidelity.h"
#include "attractor/engine/preamble.h"
#include "attractor/engine/stage_heartbeats.h"
#include "attractor/engine/thread_sessions.h"
#include "attractor/run/write_behind.h"

namespace attractor {

/// Where the traversal goes after a node.
struct Route {
  enum class Kind { kNext, kEnd, kRestart } kind = Kind::kEnd;
  std::string target;              ///< next node (kNext, kRestart)
  const EdgeData* edge = nullptr;  ///< the edge taken; nullptr for jumps and retry targets
};

/// Sends events to the run's `events.jsonl` (swapped on loop_restart) and the caller's observer.
class RunEventSink : public EventObserver {
 public:
  void set_file(std::shared_ptr<EventObserver> file);
  void set_user(std::shared_ptr<EventObserver> user);
  void on_event(const Event& event) override;
  /// Token usage summed over the run's StageUsage events (for the final event).
  nlohmann::json usage() const { return usage_.to_json(); }
  /// `usage()` with one more call of `in_flight`'s tokens (UsageTally::with_call).
  nlohmann::json usage_with(const nlohmann::json& in_flight) const { return usage_.with_call(in_flight); }
  /// Starts the count from the usage of an earlier part of the run (a resume).
  void restore_usage(const nlohmann::json& usage) { usage_.restore(usage); }
  /// Starts the count from a tally of the earlier part's events (their stage names kept).
  void restore_usage(const UsageTally& usage) { usage_.restore(usage); }
  /// Prices StageUsage events: the tally counts their cost and each event gets `cost_usd`.
  void set_prices(const PriceTable& prices) { usage_.set_prices(prices); }
  /// The cost of a stage's `stage_info` (`model`, `usage`), when priced.
  std::optional<double> stage_cost(const nlohmann::json& stage_info) const;

 private:
  void forward(const Event& event);

  UsageTally usage_;
  std::mutex mutex_;
  std::shared_ptr<EventObserver> file_;
  std::shared_ptr<EventObserver> user_;
};

class Engine::Impl : public BranchRunner {
 public:
  Impl(const Graph& graph, const HandlerRegistry& registry, EngineOptions options);
  /// Lets the writer finish what is queued (its operations use the members below).
  ~Impl() override;

  RunResult run(const nlohmann::json& initial_context);
  /// Continues from `checkpoint`, or from the run directory's when not given.
  RunResult resume(std::optional<Checkpoint> checkpoint);
  /// Stops the run before LLM stage `node` because the budget is spent (`reason`).
  RunResult budget_exhausted(const std::string& reason);

  /// A branch of the run's main line (its stages see the run's history).
  BranchResult run_branch(const std::string& start_node, Context& context, const std::string& stop_at,
                          const CancelToken& cancel) override;
  /// A branch started where the stages record into `parent` (the run's history, or an enclosing
  /// branch's): it records into a copy of `parent`, so concurrent branches never see each other's
  /// stages (their prompts stay deterministic).
  BranchResult run_branch_from(StageHistory& parent, const std::string& start_node, Context& context,
                               const std::string& stop_at, const CancelToken& cancel);

 private:
  // engine.cc
  RunResult execute_loop(std::string next, bool resumed);
  void initialize_run_directory(const std::string& parent_run);
  /// A run that finished while its last saves were journal records (killed before the final
  /// compaction): writes `finished` as the snapshot and removes the journal.
  void compact_finished_run(const Checkpoint& finished);
  /// Attaches `{run_dir_}/run.log` (replacing the previous run directory's) when enabled.
  void open_run_log();
  /// Queues setting aside the run directory's space reserve (kSpaceReserveFile), freed by the
  /// caller that records a write failure on a full disk; release_space queues its removal at the
  /// run's end.
  void reserve_space();
  void release_space();
  void seed_context();
  /// Writes the checkpoint: `state_` with the context and logs of `context_`; `last` (the
  /// run's end) writes it as the final snapshot instead of a journal record.
  void save(bool last = false);
  /// `state_` with its `context` and `logs` filled from `context_` (for RunResult).
  Checkpoint checkpoint() const;
  /// The same, moving `state_` out, for the result of a run that has stopped: nothing reads
  /// `state_` again before run() or resume() sets it afresh, and copying a long run's outcomes
  /// cost a few percent of its CPU.
  Checkpoint take_checkpoint();
  /// `c` with its `context` and `logs` filled from `context_`.
  Checkpoint with_live_context(Checkpoint c) const;
  RunResult finish(const Outcome& outcome, const std::string& current_node, std::int64_t started_ms);
  RunResult interrupted();
  std::int64_t execution_cap() const;
  std::string runaway_message(std::int64_t cap) const;
  /// Restores the usage count of the run before a resume: the checkpoint's, or the count of the
  /// StageUsage events in `events_path` when those record more calls (the calls of the stage the
  /// interruption cut short).
  void restore_usage(const std::string& events_path);
  /// The failure of entering `node` once more than its visit limit allows (model/visit_limit.h),
  /// reported as a failed stage; nullopt while the node is within its limit.
  std::optional<Outcome> visit_limit_failure(const NodeData& node);
  /// The run's failure reason when goal gate `gate` is unmet and has nowhere to retry.
  std::string unmet_goal_gate_message(const std::string& gate) const;
  /// The run's failure reason when stage `node_id` failed with `reason` and no route leads on.
  std::string dead_end_failure_message(const std::string& node_id, const std::string& reason,
                                       std::int64_t attempts) const;
  bool goal_gates_satisfied(std::string* failed_gate) const;
  std::string goal_gate_retry_target(const NodeData& gate) const;
  void begin_restart(const std::string& target);
  /// In a `worktree` run, commits the changes of the stage whose `completed_nodes` entry is
  /// `entry` (the entries after it, a parallel node's branch stages, commit nothing of their own).
  void commit_stage(std::size_t entry, const Outcome& outcome);
  /// In a `worktree` run about to continue: keeps what the worktree holds beyond the checkpoint's
  /// last commit as a patch in the next stage's directory, then returns the worktree to that commit.
  void restore_workspace(const std::string& next_node);
  /// Moves the messages addressed to `node_id` from `inbox` into context `inbox_last_consumed`
  /// (set to [] when none arrive and it held a non-empty list).
  void deliver_inbox(const std::string& node_id, Context& context, nlohmann::json& inbox);
  /// Appends the (validated) messages of `outcome` sent by `sender` to `inbox`.
  void post_messages(const Outcome& outcome, const std::string& sender, nlohmann::json& inbox);

  // engine_stage.cc
  /// The BranchRunner of one stage (StageEnv::branches): run_branch_from its history.
  class BranchesFrom;
  /// §3.5 with the retry semantics of docs/decisions.md; `retries` holds the per-node retry counters.
  /// The stage is recorded into `history` (the run's, or its branch's). `attempts`, when given,
  /// receives the number of attempts made.
  Outcome execute_with_retry(const NodeData& node, Context& context, std::map<std::string, std::int64_t>& retries,
                             const CancelToken& cancel, const StageFidelity& fidelity, StageHistory& history,
                             std::int64_t* attempts = nullptr);
  /// The StageWaiting heartbeat of an attempt of `node` when it waits on a model or a command and
  /// options_.waiting_every_ms is positive; nullptr otherwise. It stops when destroyed.
  std::unique_ptr<StageHeartbeats::Handle> start_heartbeat(const NodeData& node, std::int64_t attempt);
  /// Opens the stage directory of `node` for a new visit, archiving the previous visit's files.
  /// Sets `numbered_here` when only this engine has written into it (opened before in this
  /// process, or a run directory that held no folder): its attempt folders need no look at the disk.
  std::string open_stage_directory(const NodeData& node, bool& numbered_here);
  Outcome run_attempt(const NodeData& node, Handler& handler, Context& context, const std::string& stage_dir,
                      std::int64_t attempt, const CancelToken& cancel, const StageFidelity& fidelity,
                      AttemptFolders& folders, StageHistory& history);
  /// Routing after a node: jump_to, then failure routing (§3.7 as decided) or §3.3 selection.
  Route route_after(const NodeData& node, const Outcome& outcome, const Context& context) const;
  void emit(const std::string& name, nlohmann::json fields);
  /// The StageEnv::budget_check of stage `node_id` (empty without a budget).
  std::function<std::string(const nlohmann::json&)> budget_check_for(const std::string& node_id);
  /// Takes the reason a stage gave for stopping at the budget ("" when none did).
  std::string take_budget_stop();
  /// StageEnv::interrupt_run: records `reason` (the first one wins, and none when the run was
  /// cancelled already) and cancels the run, which then stops as interrupted.
  void request_interrupt(const std::string& reason);
  /// Copies `node_id`'s attempt count into the checkpoint state as its execution is recorded.
  void record_attempts(const std::string& node_id);
  /// The same, with branch_mutex_ already held.
  void record_attempts_locked(const std::string& node_id);

  const Graph& graph_;
  const HandlerRegistry& registry_;
  EngineOptions options_;
  RunBudget budget_;  ///< options_.budget with the graph's defaults
  RunDisk* disk_;     ///< options_.disk or the real file system
  Clock* clock_;
  UniformRandom random_;
  RunEventSink sink_;
  std::unique_ptr<ArtifactStore> artifacts_;
  std::unique_ptr<LogFile> run_log_;  ///< `run.log` of `run_dir_` while the run goes on
  std::string run_dir_;
  Context context_;  ///< the run's context; the only copy (the checkpoint is written from it)
  /// The rest of the checkpoint; its `context` and `logs` stay empty (they live in `context_`).
  Checkpoint state_;
  CheckpointWriter checkpoint_writer_;  ///< serializes `state_` and `context_` incrementally
  /// Makes the run directory's writes in order; declared after what its operations read.
  std::unique_ptr<WriteBehind> writer_;
  std::atomic<std::int64_t> stage_index_{0};
  ThreadSessions sessions_;   ///< `full`-fidelity conversations of this run (not serialized)
  StageHistory history_;      ///< finished stages, for fidelity preambles
  PreambleMemory preambles_;  ///< what this run's preambles reuse (counts, search hints)
  std::mutex branch_mutex_;
  /// Visits per node whose stage directory was opened in this run directory (guarded by
  /// branch_mutex_): the next visit archives the previous one's files (run/stage_visits.h).
  std::map<std::string, std::int64_t> stage_visits_;
  /// Stage directories this engine has opened (guarded by branch_mutex_).
  std::set<std::string> opened_stage_dirs_;
  /// The run directory held no folder when run() began (initialize_run_directory).
  bool fresh_run_dir_ = false;
  /// Handler attempts per node so far (guarded by branch_mutex_), in-flight stages included; a
  /// node's count reaches `state_.node_attempts` when its execution is recorded.
  std::map<std::string, std::int64_t> attempts_;
  std::map<std::string, std::vector<std::pair<std::string, Outcome>>> branch_records_;
  /// Messages a parallel branch sent but did not consume itself, keyed by the branch's first node.
  std::map<std::string, nlohmann::json> branch_inboxes_;
  /// The first reason a stage's `budget_check` gave for a spent budget (guarded by
  /// branch_mutex_); the main loop stops the run after that stage.
  std::string budget_stop_;
  /// Why a stage asked to interrupt the run (guarded by branch_mutex_): PipelineInterrupted's
  /// `reason` instead of options_.interrupt_reason's.
  std::string interrupt_request_;
  /// The StageWaiting beats of the run's waiting stages (one thread, started by the first);
  /// last, so it stops before anything its beats use goes.
  StageHeartbeats heartbeats_{options_.waiting_every_ms};
};

}  // namespace attractor
