#include "handlers/llm/anthropic_backend.h"

#include "attractor/base/json_limits.h"
#include "handlers/llm/openai_backend.h"
#include "handlers/llm/provider_error.h"
#include "handlers/llm/transport_retry.h"

namespace attractor {

AnthropicBackend::AnthropicBackend(ProviderSettings settings) : settings_(std::move(settings)) {
  if (settings_.base_url.empty()) settings_.base_url = "https://api.anthropic.com";
  if (!settings_.transport)
    settings_.transport = std::make_shared<HttplibTransport>(settings_.request_timeout_ms, settings_.idle_timeout_ms);
  if (!settings_.random) settings_.random = default_random();
  if (settings_.max_tokens <= 0) settings_.max_tokens = 8192;
}

std::int64_t anthropic_thinking_budget(const std::string& effort) {
  if (effort == "low") return 1024;
  if (effort == "medium") return 4096;
  if (effort == "high") return 16384;
  return 0;
}

nlohmann::json anthropic_messages_body(const CodergenRequest& request, const std::string& model,
                                       std::int64_t max_tokens) {
  std::string system;
  nlohmann::json messages = nlohmann::json::array();
  auto add = [&](const std::string& role, const std::string& content) {
    if (!messages.empty() && messages.back()["role"] == role) {
      messages.back()["content"] = messages.back()["content"].get<std::string>() + "\n\n" + content;
    } else {
      messages.push_back({{"role", role}, {"content", content}});
    }
  };
  for (const ChatMessage& m : request.history) {
    if (m.role == "system") {
      system += (system.empty() ? "" : "\n\n") + m.content;
    } else {
      add(m.role == "assistant" ? "assistant" : "user", m.content);
    }
  }
  add("user", request.prompt);
  nlohmann::json body = {{"model", model}, {"max_tokens", max_tokens}, {"messages", messages}};
  if (!system.empty()) body["system"] = system;
  auto effort = request.node ? request.node->find("reasoning_effort") : std::nullopt;
  std::int64_t budget = effort ? anthropic_thinking_budget(std::string(effort->text())) : 0;
  if (budget > 0) {
    body["max_tokens"] = max_tokens + budget;
    body["thinking"] = {{"type", "enabled"}, {"budget_tokens", budget}};
  }
  return body;
}

CodergenResult parse_anthropic_response(const std::string& body) {
  nlohmann::json j = parse_json_or_discarded(body);
  if (!j.is_object() || !j.contains("content") || !j["content"].is_array()) {
    throw StageError("anthropic: unexpected response: " + body.substr(0, 300), ErrorCategory::kTerminal);
  }
  CodergenResult result;
  for (const auto& block : j["content"]) {
    if (block.is_object() && block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
      result.response += block["text"].get<std::string>();
    }
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    const nlohmann::json& u = j["usage"];
    for (const char* key : {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}) {
      if (u.contains(key) && u[key].is_number_integer()) result.usage.input_tokens += u[key].get<std::int64_t>();
    }
    if (u.contains("output_tokens") && u["output_tokens"].is_number_integer()) {
      result.usage.output_tokens = u["output_tokens"].get<std::int64_t>();
    }
  }
  if (j.contains("id") && j["id"].is_string()) result.session_id = j["id"].get<std::string>();
  if (j.contains("model") && j["model"].is_string()) result.model = j["model"].get<std::string>();
  return result;
}

CodergenResult AnthropicBackend::run(const CodergenRequest& request) {
  std::string model = node_model(request, settings_.default_model);
  HttpRequest http;
  http.url = api_url(settings_.base_url, "messages");
  if (!settings_.api_key.empty()) http.headers.emplace_back("x-api-key", settings_.api_key);
  http.headers.emplace_back("anthropic-version", "2023-06-01");
  http.body = anthropic_messages_body(request, model, settings_.max_tokens).dump();
  http.timeout_ms = backstop_timeout(request.timeout_ms);
  http.cancel = request.cancel;
  HttpResponse response = post_with_retries(*settings_.transport, http, name(), settings_.retry,
                                            request.clock ? *request.clock : system_clock(), settings_.random);
  CodergenResult result = parse_anthropic_response(response.body);
  if (result.model.empty()) result.model = model;
  result.backend = name();
  return result;
}

ProviderRecord anthropic_provider() {
  ProviderRecord r;
  r.name = "anthropic";
  r.summary = "The Messages API at api.anthropic.com, with extended thinking from reasoning_effort.";
  r.model_prefixes = {"claude"};
  r.key_variable = "ANTHROPIC_API_KEY";
  r.base_url_variable = "ANTHROPIC_BASE_URL";
  r.model_variable = "ANTHROPIC_MODEL";
  r.default_model = "claude-sonnet-4-5";
  r.capabilities.tools = true;
  r.capabilities.fallback = true;
  r.check = [](const ProviderUse& use) { return http_provider_problem(use.record, use.config); };
  r.make = [](const ProviderUse& use) -> std::shared_ptr<CodergenBackend> {
    return std::make_shared<AnthropicBackend>(provider_settings(use.record, use.config));
  };
  return r;
}

}  // namespace attractor
