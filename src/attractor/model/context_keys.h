#pragma once
/// \file
/// The context keys the engine and the handlers share (Attractor specification, sections 3 and 4:
/// https://github.com/strongdm/attractor). They are part of the run directory's format (the
/// checkpoint's `context`, docs/run-directory.md), so their texts never change. Each constant
/// is a character array: it converts to `std::string` and `std::string_view` like a literal.

namespace attractor {

/// The node being executed (set by the engine before each stage).
inline constexpr char kCurrentNodeKey[] = "current_node";
/// The status of the last finished stage (set by the engine after each stage).
inline constexpr char kOutcomeKey[] = "outcome";
/// The preferred edge label of the last finished stage, when it named one.
inline constexpr char kPreferredLabelKey[] = "preferred_label";

/// Prefix of the graph's attributes (`graph.` + attribute name), set when a run starts.
inline constexpr char kGraphKeyPrefix[] = "graph.";
/// The graph's `goal`.
inline constexpr char kGraphGoalKey[] = "graph.goal";

/// Prefix of engine and handler bookkeeping; preambles leave these keys out.
inline constexpr char kInternalKeyPrefix[] = "internal.";
/// The run id.
inline constexpr char kRunIdKey[] = "internal.run_id";
/// Prefix of a node's retry counter (`internal.retry_count.` + node id).
inline constexpr char kRetryCountKeyPrefix[] = "internal.retry_count.";
/// The sorted ids of the threads that have a session, so that a resumed run knows conversations
/// were lost (docs/fidelity.md §6).
inline constexpr char kSessionThreadsContextKey[] = "internal.thread_sessions";

/// Keys that handlers mark as their own working state (a JSON array of key names, sorted):
/// preambles leave them out, because the stages that need them get them through their prompt
/// (`${context_blocks}`) and to every other stage they are noise.
inline constexpr char kPreambleHiddenKeysKey[] = "internal.preamble_hidden_keys";

/// The inbox messages delivered to the current stage (`[]` once they are consumed).
inline constexpr char kInboxLastConsumedKey[] = "inbox_last_consumed";

/// The last LLM stage and its response (the first 200 characters, and the full text).
inline constexpr char kLastStageKey[] = "last_stage";
inline constexpr char kLastResponseKey[] = "last_response";
inline constexpr char kLastModelResponseKey[] = "last_model_response";

/// The output of the last tool stage.
inline constexpr char kToolOutputKey[] = "tool.output";

/// The answer of the last human gate: the option's key, its label, and free text.
inline constexpr char kHumanGateSelectedKey[] = "human.gate.selected";
inline constexpr char kHumanGateLabelKey[] = "human.gate.label";
inline constexpr char kHumanGateTextKey[] = "human.gate.text";

/// What a parallel node leaves for its fan-in: one result per branch and the counts.
inline constexpr char kParallelResultsKey[] = "parallel.results";
inline constexpr char kParallelBranchCountKey[] = "parallel.branch_count";
inline constexpr char kParallelSuccessCountKey[] = "parallel.success_count";
inline constexpr char kParallelFailureCountKey[] = "parallel.failure_count";
/// Per branch after a parallel node: `parallel.branch.<first node id>.status` (success,
/// partial_success or fail; a cancelled or timed-out branch is fail) and `.notes` (why).
inline constexpr char kParallelBranchKeyPrefix[] = "parallel.branch.";
/// The parallel node's join result (success, partial_success or fail) and, when it failed, why;
/// the fan-in fails when the join failed.
inline constexpr char kParallelOutcomeKey[] = "parallel.outcome";
inline constexpr char kParallelFailureReasonKey[] = "parallel.failure_reason";
/// The branch a fan-in selected: its id, status and last response.
inline constexpr char kFanInBestIdKey[] = "parallel.fan_in.best_id";
inline constexpr char kFanInBestOutcomeKey[] = "parallel.fan_in.best_outcome";
inline constexpr char kFanInBestResponseKey[] = "parallel.fan_in.best_response";

}  // namespace attractor
