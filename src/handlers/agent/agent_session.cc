#include "handlers/agent/agent_session.h"

#include "attractor/engine/event_names.h"

namespace attractor {

namespace {

using nlohmann::json;

}  // namespace

const char* agent_stop_name(AgentStop stop) {
  switch (stop) {
    case AgentStop::kCompleted: return "completed";
    case AgentStop::kTurnLimit: return "turn_limit";
    case AgentStop::kToolRoundLimit: return "tool_round_limit";
    case AgentStop::kLoop: return "loop_detected";
    case AgentStop::kCancelled: return "cancelled";
    case AgentStop::kGate: return "budget";
    case AgentStop::kError: return "error";
  }
  return "completed";
}

AgentSession::AgentSession(AgentModel& model, ExecutionEnvironment& env, std::vector<AgentTool> tools,
                           AgentLimits limits)
    : model_(model), env_(env), tools_(std::move(tools)), limits_(std::move(limits)) {}

void AgentSession::emit(const std::string& name, const json& fields) {
  if (events_) events_(name, fields);
}

std::optional<AgentStop> AgentSession::stop_before_turn(AgentRun& run, int rounds, const CancelToken& cancel) {
  if (cancel.cancelled()) return AgentStop::kCancelled;
  if (limits_.max_turns > 0 && run.turns >= limits_.max_turns) {
    run.stop_detail = "max_turns " + std::to_string(limits_.max_turns) + " reached";
    emit(kAgentTurnLimitEvent, {{"turns", run.turns}});
    return AgentStop::kTurnLimit;
  }
  if (rounds >= limits_.max_tool_rounds) {
    run.stop_detail = "max_tool_rounds " + std::to_string(limits_.max_tool_rounds) + " reached";
    emit(kAgentTurnLimitEvent, {{"tool_rounds", rounds}});
    return AgentStop::kToolRoundLimit;
  }
  if (gate_) {
    if (std::string why = gate_(run); !why.empty()) {
      run.stop_detail = why;
      return AgentStop::kGate;
    }
  }
  return std::nullopt;
}

std::optional<ModelTurn> AgentSession::request_turn(const std::string& system, AgentRun& run,
                                                    const CancelToken& cancel) {
  try {
    return model_.complete(system, run.messages, tools_, cancel);
  } catch (const std::exception& e) {
    run.stop = AgentStop::kError;
    run.stop_detail = e.what();
    run.error = std::current_exception();
    run.transcript.push_back({{"type", "error"}, {"text", run.stop_detail}});
    return std::nullopt;
  }
}

AgentMessage AgentSession::call_tool(const ModelToolCall& call, AgentRun& run) {
  ++run.tool_calls;
  ++run.tools_used[call.name];
  emit(kAgentToolCallStartedEvent, {{"tool", call.name}, {"call_id", call.id}, {"arguments", call.arguments}});
  ToolResult result;
  const AgentTool* tool = nullptr;
  for (const AgentTool& t : tools_) {
    if (t.name == call.name) tool = &t;
  }
  std::optional<std::string> refused = hooks_.pre && tool ? hooks_.pre(call) : std::nullopt;
  if (!tool) {
    result = {"unknown tool '" + call.name + "'", true};
  } else if (refused) {
    result = {"refused by tool_hooks.pre: " + *refused, true};
  } else {
    result = run_tool(*tool, call.arguments, env_);
  }
  if (hooks_.post && tool && !refused) hooks_.post(call, result);
  emit(kAgentToolCallCompletedEvent,
       {{"tool", call.name}, {"call_id", call.id}, {"output", result.output}, {"is_error", result.is_error}});
  run.transcript.push_back({{"type", "tool_result"},
                            {"call_id", call.id},
                            {"tool", call.name},
                            {"output", result.output},
                            {"is_error", result.is_error}});
  return AgentMessage::tool_result(call.id, truncate_tool_output(result.output, call.name, limits_.output_limits),
                                   result.is_error);
}

AgentRun AgentSession::run(const std::string& system, const std::vector<AgentMessage>& history,
                           const std::string& prompt, const CancelToken& cancel) {
  AgentRun run;
  run.messages = history;
  run.messages.push_back(AgentMessage::user(prompt));
  run.transcript.push_back({{"type", "user"}, {"text", prompt}});
  LoopDetector loops(limits_.loop_window);
  for (int rounds = 0;; ++rounds) {
    if (auto stop = stop_before_turn(run, rounds, cancel)) {
      run.stop = *stop;
      break;
    }
    std::optional<ModelTurn> answered = request_turn(system, run, cancel);
    if (!answered) break;
    ModelTurn& turn = *answered;
    ++run.turns;
    run.input_tokens += turn.input_tokens;
    run.output_tokens += turn.output_tokens;
    run.model = turn.model;
    AgentMessage said;
    said.role = AgentMessage::Role::kAssistant;
    said.text = turn.text;
    said.tool_calls = turn.tool_calls;
    run.messages.push_back(said);
    run.transcript.push_back({{"type", "assistant"},
                              {"text", turn.text},
                              {"tool_calls", tool_calls_json(turn.tool_calls)},
                              {"usage", {{"input_tokens", turn.input_tokens}, {"output_tokens", turn.output_tokens}}}});
    emit(kAgentTurnEvent, {{"text", turn.text}, {"tool_calls", turn.tool_calls.size()}});
    if (!turn.text.empty()) run.final_text = turn.text;
    if (turn.tool_calls.empty()) {
      run.stop = AgentStop::kCompleted;
      break;
    }
    LoopVerdict verdict = LoopVerdict::kContinue;
    for (const ModelToolCall& call : turn.tool_calls) {
      run.messages.push_back(call_tool(call, run));
      LoopVerdict v = loops.record(call.name, call.arguments);
      if (v != LoopVerdict::kContinue) verdict = v;
    }
    if (verdict == LoopVerdict::kStop) {
      run.stop = AgentStop::kLoop;
      run.stop_detail = "the last " + std::to_string(limits_.loop_window) + " tool calls still repeat after a warning";
      emit(kAgentLoopDetectedEvent, {{"action", "stop"}});
      break;
    }
    if (verdict == LoopVerdict::kWarn) {
      const std::string warning = LoopDetector::warning_text(limits_.loop_window);
      run.messages.push_back(AgentMessage::user(warning));
      run.transcript.push_back({{"type", "steering"}, {"text", warning}});
      emit(kAgentLoopDetectedEvent, {{"action", "warn"}});
    }
  }
  emit(kAgentSessionEndedEvent, {{"stop", agent_stop_name(run.stop)},
                                 {"turns", run.turns},
                                 {"tool_calls", run.tool_calls},
                                 {"input_tokens", run.input_tokens},
                                 {"output_tokens", run.output_tokens}});
  return run;
}

}  // namespace attractor
