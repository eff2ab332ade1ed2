#pragma once
/// \file
/// The `openai` backend: Chat Completions (`POST {base}/v1/chat/completions`, bearer key) against
/// api.openai.com or any compatible server (Ollama, llama.cpp server, vLLM). The messages are the
/// request's history followed by the prompt as a user message. `reasoning_effort` is sent only to
/// reasoning models (o1*, o3*, o4*, gpt-5*, gpt-oss*), whose Chat Completions parameter has the
/// same name; other models reject it, so it is omitted for them. Effort "none" omits it too.

#include <nlohmann/json.hpp>

#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/provider.h"
#include "handlers/llm/provider_settings.h"

namespace attractor {

class OpenAiBackend : public CodergenBackend {
 public:
  explicit OpenAiBackend(ProviderSettings settings);
  std::string name() const override { return "openai"; }
  CodergenResult run(const CodergenRequest& request) override;

 private:
  ProviderSettings settings_;
};

/// The `openai` provider record (provider_table.h): OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL.
ProviderRecord openai_provider();

/// The model a node uses: `llm_model`, else `fallback`.
std::string node_model(const CodergenRequest& request, const std::string& fallback);

/// True for OpenAI model names that take `reasoning_effort`.
bool is_openai_reasoning_model(const std::string& model);

/// The Chat Completions request body for `request` with `model`.
nlohmann::json openai_chat_body(const CodergenRequest& request, const std::string& model);

/// Parses a Chat Completions response body into text, usage, id and model; throws a terminal
/// StageError when the body is not a completion.
CodergenResult parse_openai_chat_response(const std::string& body);

}  // namespace attractor
