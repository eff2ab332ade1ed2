#pragma once
/// \file
/// The model side of the coding agent: a conversation with tool calls and the interface that
/// sends it to a model and returns the model's next turn. `HttpAgentModel` speaks the two wire
/// formats of agent_protocol.h over the LLM layer's HTTP transport and retries; tests script an
/// `AgentModel` directly or put a fake HTTP server behind `HttpAgentModel`.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/base/clock.h"
#include "handlers/agent/agent_tools.h"
#include "handlers/llm/provider_settings.h"

namespace attractor {

struct ModelToolCall {
  std::string id;
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();
};

/// `[{"id", "name", "arguments"}, ...]`: how transcripts and thread messages record calls.
nlohmann::json tool_calls_json(const std::vector<ModelToolCall>& calls);

/// One message of an agent conversation.
struct AgentMessage {
  enum class Role { kUser, kAssistant, kToolResult };
  Role role = Role::kUser;
  std::string text;                       ///< user or assistant text, or the tool result
  std::vector<ModelToolCall> tool_calls;  ///< assistant: the calls it made
  std::string tool_call_id;               ///< tool result: the call it answers
  bool is_error = false;                  ///< tool result: the call failed

  static AgentMessage user(std::string text);
  static AgentMessage tool_result(std::string call_id, std::string output, bool is_error);
};

/// The model's next turn: text and/or tool calls, with the tokens it cost.
struct ModelTurn {
  std::string text;
  std::vector<ModelToolCall> tool_calls;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string model;
};

class AgentModel {
 public:
  virtual ~AgentModel() = default;
  /// The model's answer to `messages` under `system` with `tools` available. Throws StageError
  /// (retryable or terminal) when the provider fails.
  virtual ModelTurn complete(const std::string& system, const std::vector<AgentMessage>& messages,
                             const std::vector<AgentTool>& tools, const CancelToken& cancel) = 0;
};

/// `provider` "openai" (Chat Completions with tools) or "anthropic" (Messages with tool_use).
class HttpAgentModel : public AgentModel {
 public:
  HttpAgentModel(std::string provider, std::string model, ProviderSettings settings, Clock* clock = nullptr);
  ModelTurn complete(const std::string& system, const std::vector<AgentMessage>& messages,
                     const std::vector<AgentTool>& tools, const CancelToken& cancel) override;

 private:
  std::string provider_;
  std::string model_;
  ProviderSettings settings_;
  Clock* clock_;
};

}  // namespace attractor
