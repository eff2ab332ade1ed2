#include "handlers/agent/agent_model.h"

#include <stdexcept>

#include "handlers/agent/agent_protocol.h"
#include "handlers/llm/provider_error.h"
#include "handlers/llm/transport_retry.h"

namespace attractor {

nlohmann::json tool_calls_json(const std::vector<ModelToolCall>& calls) {
  nlohmann::json out = nlohmann::json::array();
  for (const ModelToolCall& c : calls) out.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return out;
}

AgentMessage AgentMessage::user(std::string text) {
  AgentMessage m;
  m.role = Role::kUser;
  m.text = std::move(text);
  return m;
}

AgentMessage AgentMessage::tool_result(std::string call_id, std::string output, bool is_error) {
  AgentMessage m;
  m.role = Role::kToolResult;
  m.tool_call_id = std::move(call_id);
  m.text = std::move(output);
  m.is_error = is_error;
  return m;
}

HttpAgentModel::HttpAgentModel(std::string provider, std::string model, ProviderSettings settings, Clock* clock)
    : provider_(std::move(provider)), model_(std::move(model)), settings_(std::move(settings)), clock_(clock) {
  if (provider_ != "openai" && provider_ != "anthropic") {
    throw std::invalid_argument("the agent speaks openai or anthropic, not '" + provider_ + "'");
  }
  if (settings_.base_url.empty()) {
    settings_.base_url = provider_ == "openai" ? "https://api.openai.com" : "https://api.anthropic.com";
  }
  if (!settings_.transport)
    settings_.transport = std::make_shared<HttplibTransport>(settings_.request_timeout_ms, settings_.idle_timeout_ms);
  if (!settings_.random) settings_.random = default_random();
  if (settings_.max_tokens <= 0) settings_.max_tokens = 8192;
}

ModelTurn HttpAgentModel::complete(const std::string& system, const std::vector<AgentMessage>& messages,
                                   const std::vector<AgentTool>& tools, const CancelToken& cancel) {
  HttpRequest http;
  http.cancel = cancel;
  if (provider_ == "openai") {
    http.url = api_url(settings_.base_url, "chat/completions");
    if (!settings_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + settings_.api_key);
    http.body = openai_tools_body(model_, system, messages, tools).dump();
  } else {
    http.url = api_url(settings_.base_url, "messages");
    if (!settings_.api_key.empty()) http.headers.emplace_back("x-api-key", settings_.api_key);
    http.headers.emplace_back("anthropic-version", "2023-06-01");
    http.body = anthropic_tools_body(model_, settings_.max_tokens, system, messages, tools).dump();
  }
  HttpResponse response = post_with_retries(*settings_.transport, http, provider_, settings_.retry,
                                            clock_ ? *clock_ : system_clock(), settings_.random);
  ModelTurn turn = provider_ == "openai" ? parse_openai_tools_response(response.body)
                                         : parse_anthropic_tools_response(response.body);
  if (turn.model.empty()) turn.model = model_;
  return turn;
}

}  // namespace attractor
