#pragma once
/// \file
/// The tool-calling wire formats of the two providers, as request bodies built from an agent
/// conversation and model turns parsed from response bodies.
///
/// OpenAI Chat Completions: tools are `{"type": "function", "function": {name, description,
/// parameters}}`; the assistant's calls are `message.tool_calls[]` with `function.arguments` as a
/// JSON string; results go back as `{"role": "tool", "tool_call_id", "content"}` messages.
/// Anthropic Messages: tools are `{name, description, input_schema}`; calls are `tool_use` content
/// blocks with an `input` object; results go back in a user message as `tool_result` blocks with
/// `is_error`.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handlers/agent/agent_model.h"

namespace attractor {

nlohmann::json openai_tools_body(const std::string& model, const std::string& system,
                                 const std::vector<AgentMessage>& messages, const std::vector<AgentTool>& tools);

/// Throws a terminal StageError when the body is not a chat completion; arguments that are not
/// valid JSON are kept as {"_raw": TEXT} so the tool reports a validation error to the model.
ModelTurn parse_openai_tools_response(const std::string& body);

nlohmann::json anthropic_tools_body(const std::string& model, std::int64_t max_tokens, const std::string& system,
                                    const std::vector<AgentMessage>& messages, const std::vector<AgentTool>& tools);

ModelTurn parse_anthropic_tools_response(const std::string& body);

}  // namespace attractor
