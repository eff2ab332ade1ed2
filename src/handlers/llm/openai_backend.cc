#include "handlers/llm/openai_backend.h"

#include "attractor/base/json_limits.h"
#include "handlers/llm/provider_error.h"
#include "handlers/llm/transport_retry.h"

namespace attractor {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string()) {
        out += part["text"].get<std::string>();
      }
    }
  }
  return out;
}

}  // namespace

OpenAiBackend::OpenAiBackend(ProviderSettings settings) : settings_(std::move(settings)) {
  if (settings_.base_url.empty()) settings_.base_url = "https://api.openai.com/v1";
  if (!settings_.transport)
    settings_.transport = std::make_shared<HttplibTransport>(settings_.request_timeout_ms, settings_.idle_timeout_ms);
  if (!settings_.random) settings_.random = default_random();
}

std::string node_model(const CodergenRequest& request, const std::string& fallback) {
  if (!request.model_override.empty()) return request.model_override;
  if (request.node && !request.node->llm_model().empty()) return request.node->llm_model();
  return fallback;
}

bool is_openai_reasoning_model(const std::string& model) {
  std::string m = model.substr(model.rfind('/') == std::string::npos ? 0 : model.rfind('/') + 1);
  return starts_with(m, "o1") || starts_with(m, "o3") || starts_with(m, "o4") || starts_with(m, "gpt-5") ||
         starts_with(m, "gpt-oss");
}

nlohmann::json openai_chat_body(const CodergenRequest& request, const std::string& model) {
  nlohmann::json messages = nlohmann::json::array();
  for (const ChatMessage& m : request.history) messages.push_back({{"role", m.role}, {"content", m.content}});
  messages.push_back({{"role", "user"}, {"content", request.prompt}});
  nlohmann::json body = {{"model", model}, {"messages", messages}};
  std::string effort = request.node ? request.node->reasoning_effort() : "";
  if (is_openai_reasoning_model(model) && !effort.empty() && effort != "none") body["reasoning_effort"] = effort;
  return body;
}

CodergenResult parse_openai_chat_response(const std::string& body) {
  nlohmann::json j = parse_json_or_discarded(body);
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
      !j["choices"][0].is_object() || !j["choices"][0].contains("message")) {
    throw StageError("openai: unexpected response: " + body.substr(0, 300), ErrorCategory::kTerminal);
  }
  CodergenResult result;
  const nlohmann::json& message = j["choices"][0]["message"];
  if (message.contains("content")) result.response = text_of(message["content"]);
  if (result.response.empty() && message.contains("refusal") && message["refusal"].is_string()) {
    result.response = message["refusal"].get<std::string>();
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    const nlohmann::json& u = j["usage"];
    if (u.contains("prompt_tokens") && u["prompt_tokens"].is_number_integer()) {
      result.usage.input_tokens = u["prompt_tokens"].get<std::int64_t>();
    }
    if (u.contains("completion_tokens") && u["completion_tokens"].is_number_integer()) {
      result.usage.output_tokens = u["completion_tokens"].get<std::int64_t>();
    }
  }
  if (j.contains("id") && j["id"].is_string()) result.session_id = j["id"].get<std::string>();
  if (j.contains("model") && j["model"].is_string()) result.model = j["model"].get<std::string>();
  return result;
}

CodergenResult OpenAiBackend::run(const CodergenRequest& request) {
  std::string model = node_model(request, settings_.default_model);
  HttpRequest http;
  http.url = api_url(settings_.base_url, "chat/completions");
  if (!settings_.api_key.empty()) http.headers.emplace_back("Authorization", "Bearer " + settings_.api_key);
  http.body = openai_chat_body(request, model).dump();
  http.timeout_ms = backstop_timeout(request.timeout_ms);
  http.cancel = request.cancel;
  HttpResponse response = post_with_retries(*settings_.transport, http, name(), settings_.retry,
                                            request.clock ? *request.clock : system_clock(), settings_.random);
  CodergenResult result = parse_openai_chat_response(response.body);
  if (result.model.empty()) result.model = model;
  result.backend = name();
  return result;
}

ProviderRecord openai_provider() {
  ProviderRecord r;
  r.name = "openai";
  r.summary = "Chat Completions at api.openai.com or any compatible server (Ollama, llama.cpp, vLLM).";
  r.model_prefixes = {"gpt-", "chatgpt-", "o1", "o3", "o4"};
  r.key_variable = "OPENAI_API_KEY";
  r.base_url_variable = "OPENAI_BASE_URL";
  r.model_variable = "OPENAI_MODEL";
  r.default_model = "gpt-4o-mini";
  r.capabilities.tools = true;
  r.capabilities.fallback = true;
  r.check = [](const ProviderUse& use) { return http_provider_problem(use.record, use.config); };
  r.make = [](const ProviderUse& use) -> std::shared_ptr<CodergenBackend> {
    return std::make_shared<OpenAiBackend>(provider_settings(use.record, use.config));
  };
  return r;
}

}  // namespace attractor
