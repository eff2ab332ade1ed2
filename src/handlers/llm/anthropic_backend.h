#pragma once
/// \file
/// The `anthropic` backend: the Messages API (`POST {base}/v1/messages` with `x-api-key` and
/// `anthropic-version: 2023-06-01`). History messages with role "system" become the top-level
/// `system` text; consecutive messages of the same role are merged (the API wants alternation).
/// `max_tokens` is required: the settings' value (8192 by default).
///
/// Effort: only a `reasoning_effort` set on the node (directly or by the stylesheet) enables
/// extended thinking, since the attribute's implicit default ("high") would otherwise turn it on
/// for every call: low → budget 1024, medium → 4096, high → 16384 tokens, added to `max_tokens`.
/// "none" or "minimal" (and no attribute) send no `thinking`.

#include <nlohmann/json.hpp>

#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/provider.h"
#include "handlers/llm/provider_settings.h"

namespace attractor {

class AnthropicBackend : public CodergenBackend {
 public:
  explicit AnthropicBackend(ProviderSettings settings);
  std::string name() const override { return "anthropic"; }
  CodergenResult run(const CodergenRequest& request) override;

 private:
  ProviderSettings settings_;
};

/// The `anthropic` provider record (provider_table.h): ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
/// ANTHROPIC_MODEL.
ProviderRecord anthropic_provider();

/// The thinking budget for an explicit effort; 0 = no extended thinking.
std::int64_t anthropic_thinking_budget(const std::string& effort);

/// The Messages request body for `request` with `model`.
nlohmann::json anthropic_messages_body(const CodergenRequest& request, const std::string& model,
                                       std::int64_t max_tokens);

/// Parses a Messages response: concatenated text blocks, usage, id and model.
CodergenResult parse_anthropic_response(const std::string& body);

}  // namespace attractor
