#pragma once
/// \file
/// Context preambles for fresh LLM sessions (spec §5.4, docs/fidelity.md "Preambles").
///
/// A stage whose fidelity is not `full` starts a fresh conversation; the codergen handler puts the
/// preamble of its mode in front of the prompt. The preamble is built from what the engine knows:
/// the pipeline name and goal (graph), the run id (context `internal.run_id`), the completed
/// stages of this run with their outcome, notes, handler type, attempts, duration and tool use
/// (the engine's StageHistory), key context values (the context without `internal.*`, `graph.*`,
/// the engine's own bookkeeping keys, the keys the stage's prompt references and the keys handlers
/// marked as their working state), and retry information (attempts of completed stages
/// and of the current one).
///
/// Templates (docs/fidelity.md): `truncate` = pipeline, goal, run id, current stage; `compact` = bullet
/// points (completed stages with outcomes, current stage, key context values); `summary:low` = two
/// sentences plus event counts; `summary:medium` = recent activity with note excerpts, active
/// context, notable events (failures, retries); `summary:high` = full execution history (notes,
/// tools, durations, attempts), the context as JSON, retry information.
///
/// Budgets, measured with the graph's exact token counter: truncate 100, compact 500,
/// summary:low 600, summary:medium 1500, summary:high 3000. Over budget, entries are dropped in
/// this order until it fits: completed stages oldest first (the three most recent are kept for
/// last), then context values largest first, then the three most recent stages; a line says how
/// many were left out. If the fixed part alone is still too long (a huge goal), the text is cut
/// at the budget. The result never exceeds the budget.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/run/checkpoint.h"
#include "attractor/model/context.h"
#include "attractor/model/graph.h"
#include "attractor/model/outcome.h"
#include "attractor/tokens/chunked_counter.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {

/// One finished stage execution, as preambles report it.
struct StageRecord {
  std::string node_id;
  std::string handler_type;
  std::string status;         ///< status_name of the final outcome
  std::string notes;          ///< outcome notes; the failure reason for failures
  std::int64_t attempts = 1;  ///< attempts used (retries + 1)
  std::int64_t max_attempts = 1;
  std::int64_t duration_ms = -1;   ///< all attempts together; -1 when unknown (restored on resume)
  std::vector<std::string> tools;  ///< tool use: a tool node's command, or `stage_info.tools`
};

/// A finished record, shared between the history and the preambles that show it.
using StageRecordPtr = std::shared_ptr<const StageRecord>;

/// The record of one execution: notes (failure reason when failed), the `tool_command` of tool
/// nodes and the strings in `outcome.stage_info["tools"]`.
StageRecord make_stage_record(const NodeData& node, const std::string& handler_type, const Outcome& outcome,
                              std::int64_t attempts, std::int64_t max_attempts, std::int64_t duration_ms);

/// Counts over every finished stage of a run (kept incrementally by StageHistory).
struct StageTotals {
  std::size_t stages = 0;     ///< records
  std::size_t non_start = 0;  ///< records of nodes other than the start node
  std::size_t succeeded = 0;  ///< success or partial_success
  std::size_t failed = 0;
  std::int64_t retries = 0;  ///< attempts beyond the first, summed
};

/// The finished stages of a run, oldest first. Owned by the engine; thread-safe (parallel
/// branches add records concurrently). In memory only: `restore` rebuilds it from a checkpoint.
class StageHistory {
 public:
  void add(StageRecord record);
  std::vector<StageRecord> records() const;
  std::size_t size() const;
  void clear();
  /// Replaces the records with the checkpoint's `completed_nodes`, each with its node's last
  /// recorded status and failure reason (notes, durations and tools are not in the checkpoint).
  void restore(const Checkpoint& checkpoint, const Graph& graph);
  /// Keeps the records of the parallel branch that started at `branch_start` aside until
  /// `adopt_branch`, so branch stages enter the history in edge order, not completion order.
  void stash_branch(const std::string& branch_start, std::vector<StageRecord> records);
  /// Appends the stashed records of `branch_start` (nothing when none were stashed).
  void adopt_branch(const std::string& branch_start);
  /// The last `max` records (all when fewer), oldest first; `earlier` receives how many precede them.
  /// Shared, not copied: a preamble late in a long run gathers hundreds of them.
  std::vector<StageRecordPtr> recent(std::size_t max, std::size_t* earlier) const;
  StageTotals totals() const;
  /// Stages of `graph` other than start and exit, counted once per history.
  std::int64_t graph_stage_count(const Graph& graph) const;

 private:
  mutable std::mutex mutex_;
  void count(const StageRecord& record);  ///< adds `record` to totals_ (mutex held)

  std::vector<StageRecordPtr> records_;
  std::map<std::string, std::vector<StageRecord>> stashed_;
  StageTotals totals_;
  mutable const Graph* counted_graph_ = nullptr;
  mutable std::int64_t graph_stages_ = 0;
};

/// Everything a preamble is built from.
struct PreambleInput {
  std::string pipeline_name;
  std::string goal;
  std::string run_id;
  std::string current_node;
  std::int64_t stage_number = 1;          ///< this stage's position (completed stages, start excluded, + 1)
  std::int64_t total_stages = 1;          ///< stages of the graph (start and exit excluded), at least stage_number
  std::vector<StageRecordPtr> completed;  ///< oldest first, never null
  /// Completed stages before `completed` that were not gathered (they can never fit the budget);
  /// reported as omitted.
  std::size_t earlier_stages = 0;
  /// Counts over all completed stages; when absent they are computed from `completed`.
  std::optional<StageTotals> totals;
  nlohmann::json context = nlohmann::json::object();  ///< key context values
  std::int64_t current_attempt = 1;
  std::int64_t current_max_attempts = 1;
};

/// True for context keys preambles leave out: `internal.*`, `graph.*` (the graph attributes),
/// `current_node`, `outcome`, `preferred_label`, `last_stage`, `last_model_response`,
/// `inbox_last_consumed`.
bool is_bookkeeping_context_key(std::string_view key);

/// The keys a preamble for `node` also leaves out: those its prompt references (`${key}`: the stage
/// gets them in full) and those handlers marked in `internal.preamble_hidden_keys`.
std::set<std::string> hidden_from_preamble(const NodeData& node, const Context& context);

/// Gathers the input for `node` from the graph, the context and the history (may be null).
/// At most `max_records` of the most recent stages are gathered (see preamble_record_limit).
PreambleInput gather_preamble_input(const NodeData& node, const Context& context, const Graph& graph,
                                    const StageHistory* history, std::int64_t attempt = 1,
                                    std::size_t max_records = static_cast<std::size_t>(-1));

/// How many of the most recent stages a preamble of `mode` can ever show within its budget
/// (every stage entry costs at least two tokens), so older ones need not be gathered.
std::size_t preamble_record_limit(std::string_view mode);

/// A built preamble.
struct Preamble {
  std::string mode;
  std::string text;
  std::size_t tokens = 0;  ///< exact count of `text`
  std::size_t budget = 0;
  std::size_t omitted_stages = 0;   ///< completed stages left out to fit
  std::size_t omitted_context = 0;  ///< context values left out to fit
  bool cut = false;                 ///< the text was cut at the budget
};

/// What the successive preambles of one run reuse: the token counts of text chunks they share
/// (tokens/chunked_counter.h) and, per mode, how many entries the last one kept (where the next
/// budget search starts). The engine owns one per run; a preamble comes out the same with or
/// without it, only the counting is saved. A preamble built while another thread (a parallel
/// branch) holds `mutex` builds without it.
struct PreambleMemory {
  std::mutex mutex;  ///< held by the preamble that uses the members below
  ChunkedCounter chunked;
  std::map<std::string, std::size_t, std::less<>> kept_last_time;
};

/// The token budget of a non-`full` mode: 100, 500, 600, 1500, 3000; 0 for `full` or unknown.
std::size_t preamble_budget(std::string_view mode);

/// The preamble of `mode` (one of the five non-`full` modes; anything else is built as `compact`)
/// within `preamble_budget(mode)` tokens counted by `counter`.
Preamble build_preamble(std::string_view mode, const PreambleInput& input, const TokenCounter& counter);

/// Same with an explicit budget (tests use small ones) and, when not null, the run's memory of
/// earlier preambles.
Preamble build_preamble(std::string_view mode, const PreambleInput& input, const TokenCounter& counter,
                        std::size_t budget, PreambleMemory* memory = nullptr);

/// "350ms", "2.5s", "3m 05s".
std::string format_duration_ms(std::int64_t ms);

}  // namespace attractor
