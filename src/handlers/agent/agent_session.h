#pragma once
/// \file
/// The coding agent's loop (coding-agent-loop spec §2.5): send the conversation to the model; run
/// the tool calls it makes (each through the hooks, its full output to the events, a truncated
/// copy back to the model); repeat until the model answers without tool calls or a stop condition
/// holds (§2.8): the turn limit, the tool-round limit, a repeating loop after its warning (§2.10),
/// cancellation, the gate (the run budget) saying no before a model call, or a model request
/// failing (the session keeps what the turns before it did, and the error).
///
/// Events (§2.9, named in attractor/engine/event_names.h): AgentTurn, AgentToolCallStarted,
/// AgentToolCallCompleted (full output), AgentLoopDetected, AgentTurnLimit, AgentSessionEnded.

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handlers/agent/agent_model.h"
#include "handlers/agent/loop_detector.h"
#include "handlers/agent/tool_output.h"

namespace attractor {

struct AgentLimits {
  int max_turns = 0;          ///< model calls per session; 0 = no limit
  int max_tool_rounds = 200;  ///< rounds of tool calls per input
  std::size_t loop_window = 10;
  std::map<std::string, ToolOutputLimit> output_limits;  ///< per-tool overrides of §5.2
};

/// Around every tool call: `pre` may refuse it (its message goes to the model as the error);
/// `post` sees the result.
struct AgentHooks {
  std::function<std::optional<std::string>(const ModelToolCall& call)> pre;
  std::function<void(const ModelToolCall& call, const ToolResult& result)> post;
};

/// Why a session ended.
enum class AgentStop { kCompleted, kTurnLimit, kToolRoundLimit, kLoop, kCancelled, kGate, kError };
const char* agent_stop_name(AgentStop stop);

struct AgentRun {
  AgentStop stop = AgentStop::kCompleted;
  std::string stop_detail;  ///< the gate's reason, the limit reached, the request's error
  std::string final_text;   ///< the model's last text
  int turns = 0;
  int tool_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string model;
  std::map<std::string, int> tools_used;                ///< tool name -> calls
  std::vector<AgentMessage> messages;                   ///< the whole conversation, prompt first
  nlohmann::json transcript = nlohmann::json::array();  ///< one entry per message and tool call
  std::exception_ptr error;                             ///< what the failed request threw (kError)
};

class AgentSession {
 public:
  AgentSession(AgentModel& model, ExecutionEnvironment& env, std::vector<AgentTool> tools, AgentLimits limits = {});

  void set_events(std::function<void(const std::string& name, const nlohmann::json& fields)> sink) {
    events_ = std::move(sink);
  }
  void set_hooks(AgentHooks hooks) { hooks_ = std::move(hooks); }
  /// Asked before each model call with the session so far (its tokens); a non-empty answer
  /// stops the session with that reason (the run budget).
  void set_gate(std::function<std::string(const AgentRun& so_far)> gate) { gate_ = std::move(gate); }

  /// Runs `prompt` after `history` (an earlier conversation of the same thread).
  AgentRun run(const std::string& system, const std::vector<AgentMessage>& history, const std::string& prompt,
               const CancelToken& cancel);

 private:
  /// Runs one call: hooks, tool, events; returns what goes back to the model.
  AgentMessage call_tool(const ModelToolCall& call, AgentRun& run);
  void emit(const std::string& name, const nlohmann::json& fields);
  std::optional<AgentStop> stop_before_turn(AgentRun& run, int rounds, const CancelToken& cancel);
  /// One model request; nullopt when it threw (recorded in `run` as the kError stop).
  std::optional<ModelTurn> request_turn(const std::string& system, AgentRun& run, const CancelToken& cancel);

  AgentModel& model_;
  ExecutionEnvironment& env_;
  std::vector<AgentTool> tools_;
  AgentLimits limits_;
  AgentHooks hooks_;
  std::function<void(const std::string&, const nlohmann::json&)> events_;
  std::function<std::string(const AgentRun&)> gate_;
};

}  // namespace attractor
