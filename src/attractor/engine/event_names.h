#pragma once
/// \file
/// The names of the events the engine and the handlers emit (Attractor specification, section 9.6:
/// https://github.com/strongdm/attractor, and this project's additions, docs/run-directory.md §2.3). They
/// are part of `events.jsonl`, so their texts never change. Each constant is a character array: it
/// converts to `std::string` and `std::string_view` like a literal.

namespace attractor {

inline constexpr char kPipelineStartedEvent[] = "PipelineStarted";
inline constexpr char kPipelineCompletedEvent[] = "PipelineCompleted";
inline constexpr char kPipelineFailedEvent[] = "PipelineFailed";
inline constexpr char kPipelineInterruptedEvent[] = "PipelineInterrupted";
/// The run stopped before an LLM stage because its token or cost budget was spent
/// (`reason`, `next_node`, `usage`); the checkpoint is valid and a resume continues it.
inline constexpr char kBudgetExhaustedEvent[] = "BudgetExhausted";
inline constexpr char kPipelineRestartedEvent[] = "PipelineRestarted";

inline constexpr char kStageStartedEvent[] = "StageStarted";
inline constexpr char kStageCompletedEvent[] = "StageCompleted";
inline constexpr char kStageFailedEvent[] = "StageFailed";
inline constexpr char kStageRetryingEvent[] = "StageRetrying";
/// A sign of life of a stage still waiting on a model or a command (`name`, `attempt`,
/// `waiting_on`: "model" or "command", `elapsed_ms`), every EngineOptions::waiting_every_ms.
inline constexpr char kStageWaitingEvent[] = "StageWaiting";
/// Token usage and fidelity of one attempt of an LLM stage (its `requests` model requests).
inline constexpr char kStageUsageEvent[] = "StageUsage";

inline constexpr char kCheckpointSavedEvent[] = "CheckpointSaved";

/// A `worktree` run committed a stage's changes (`node_id`, `visit`, `commit`; docs/workspace.md).
inline constexpr char kStageCommittedEvent[] = "StageCommitted";
/// A resumed `worktree` run returned its worktree to the checkpoint's commit (`commit`, and
/// `patch`, the run-directory path of the interrupted stage's edits, when there were any).
inline constexpr char kWorkspaceRestoredEvent[] = "WorkspaceRestored";
/// `attractor rewind` took a worktree run back to a stage (`to`, `number`, `archive`, `ref`,
/// `old_head`, `commit`, `next_node`, `moved`, `visit_counts`; docs/workspace.md, section 6).
inline constexpr char kRunRewoundEvent[] = "RunRewound";
/// The first event of a run made by `attractor fork` (`from_run_dir`, `from_run_id`, `at`,
/// `commit`, `next_node`; docs/workspace.md, section 6).
inline constexpr char kRunForkedEvent[] = "RunForked";

inline constexpr char kParallelStartedEvent[] = "ParallelStarted";
inline constexpr char kParallelCompletedEvent[] = "ParallelCompleted";
inline constexpr char kParallelBranchStartedEvent[] = "ParallelBranchStarted";
inline constexpr char kParallelBranchCompletedEvent[] = "ParallelBranchCompleted";

inline constexpr char kInterviewStartedEvent[] = "InterviewStarted";
inline constexpr char kInterviewCompletedEvent[] = "InterviewCompleted";
inline constexpr char kInterviewTimeoutEvent[] = "InterviewTimeout";

inline constexpr char kInboxEnqueuedEvent[] = "InboxEnqueued";
inline constexpr char kInboxDeliveredEvent[] = "InboxDelivered";

/// A prompt named context keys the context does not hold.
inline constexpr char kPromptVariableUnknownEvent[] = "PromptVariableUnknown";
/// A loop guard counted an iteration and decided.
inline constexpr char kLoopGuardEvent[] = "LoopGuard";

/// The built-in coding agent (`llm_provider=agent`, src/handlers/agent/): each model turn, each
/// tool call's start and end (the end with the full output), loop detection, a turn or round
/// limit, and the session's end with its totals. Fields carry `node`.
inline constexpr char kAgentTurnEvent[] = "AgentTurn";
inline constexpr char kAgentToolCallStartedEvent[] = "AgentToolCallStarted";
inline constexpr char kAgentToolCallCompletedEvent[] = "AgentToolCallCompleted";
inline constexpr char kAgentLoopDetectedEvent[] = "AgentLoopDetected";
inline constexpr char kAgentTurnLimitEvent[] = "AgentTurnLimit";
inline constexpr char kAgentSessionEndedEvent[] = "AgentSessionEnded";

/// The retrieval steps' traces (docs/retrieval.md, sections 4 to 7).
inline constexpr char kSearchNodesEvent[] = "SEARCH_NODES";
inline constexpr char kExpandDependencyTreeEvent[] = "EXPAND_DEPENDENCY_TREE";
inline constexpr char kFetchNodeTextsEvent[] = "FETCH_NODE_TEXTS";
inline constexpr char kManageContextBudgetEvent[] = "MANAGE_CONTEXT_BUDGET";

}  // namespace attractor
