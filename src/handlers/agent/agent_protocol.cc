#include "handlers/agent/agent_protocol.h"

#include "attractor/base/json_limits.h"
#include "attractor/model/outcome.h"

namespace attractor {

namespace {

using nlohmann::json;
using Role = AgentMessage::Role;

json parse_or_throw(const std::string& body, const char* provider) {
  json j = parse_json_or_discarded(body);
  if (!j.is_object()) {
    throw StageError(std::string(provider) + ": unexpected response: " + body.substr(0, 300), ErrorCategory::kTerminal);
  }
  return j;
}

std::int64_t integer(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_number_integer() ? object[key].get<std::int64_t>()
                                                                                       : 0;
}

json openai_message(const AgentMessage& m) {
  if (m.role == Role::kToolResult) return {{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", m.text}};
  if (m.role == Role::kUser) return {{"role", "user"}, {"content", m.text}};
  json out = {{"role", "assistant"}, {"content", m.text.empty() ? json() : json(m.text)}};
  if (!m.tool_calls.empty()) {
    out["tool_calls"] = json::array();
    for (const ModelToolCall& c : m.tool_calls) {
      out["tool_calls"].push_back(
          {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments.dump()}}}});
    }
  }
  return out;
}

/// Anthropic wants user and assistant turns alternating: consecutive tool results share one
/// user message.
void add_anthropic_message(json& messages, const AgentMessage& m) {
  if (m.role == Role::kAssistant) {
    json content = json::array();
    if (!m.text.empty()) content.push_back({{"type", "text"}, {"text", m.text}});
    for (const ModelToolCall& c : m.tool_calls) {
      content.push_back({{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", c.arguments}});
    }
    messages.push_back({{"role", "assistant"}, {"content", content}});
    return;
  }
  json block = m.role == Role::kUser ? json{{"type", "text"}, {"text", m.text}}
                                     : json{{"type", "tool_result"},
                                            {"tool_use_id", m.tool_call_id},
                                            {"content", m.text},
                                            {"is_error", m.is_error}};
  if (!messages.empty() && messages.back()["role"] == "user") {
    messages.back()["content"].push_back(block);
  } else {
    messages.push_back({{"role", "user"}, {"content", json::array({block})}});
  }
}

}  // namespace

json openai_tools_body(const std::string& model, const std::string& system, const std::vector<AgentMessage>& messages,
                       const std::vector<AgentTool>& tools) {
  json out = json::array();
  if (!system.empty()) out.push_back({{"role", "system"}, {"content", system}});
  for (const AgentMessage& m : messages) out.push_back(openai_message(m));
  json body = {{"model", model}, {"messages", out}};
  if (!tools.empty()) {
    body["tools"] = json::array();
    for (const AgentTool& t : tools) {
      body["tools"].push_back(
          {{"type", "function"},
           {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
    }
  }
  return body;
}

ModelTurn parse_openai_tools_response(const std::string& body) {
  json j = parse_or_throw(body, "openai");
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
      !j["choices"][0].contains("message")) {
    throw StageError("openai: unexpected response: " + body.substr(0, 300), ErrorCategory::kTerminal);
  }
  const json& message = j["choices"][0]["message"];
  ModelTurn turn;
  if (message.contains("content") && message["content"].is_string()) turn.text = message["content"];
  if (message.contains("tool_calls") && message["tool_calls"].is_array()) {
    for (const json& c : message["tool_calls"]) {
      if (!c.is_object() || !c.contains("function")) continue;
      ModelToolCall call;
      call.id = c.value("id", std::string());
      call.name = c["function"].value("name", std::string());
      const std::string raw = c["function"].value("arguments", std::string("{}"));
      json args = parse_json_or_discarded(raw);
      call.arguments = args.is_object() ? args : json{{"_raw", raw}};
      turn.tool_calls.push_back(std::move(call));
    }
  }
  turn.input_tokens = integer(j.value("usage", json::object()), "prompt_tokens");
  turn.output_tokens = integer(j.value("usage", json::object()), "completion_tokens");
  turn.model = j.value("model", std::string());
  return turn;
}

json anthropic_tools_body(const std::string& model, std::int64_t max_tokens, const std::string& system,
                          const std::vector<AgentMessage>& messages, const std::vector<AgentTool>& tools) {
  json out = json::array();
  for (const AgentMessage& m : messages) add_anthropic_message(out, m);
  json body = {{"model", model}, {"max_tokens", max_tokens}, {"messages", out}};
  if (!system.empty()) body["system"] = system;
  if (!tools.empty()) {
    body["tools"] = json::array();
    for (const AgentTool& t : tools) {
      body["tools"].push_back({{"name", t.name}, {"description", t.description}, {"input_schema", t.parameters}});
    }
  }
  return body;
}

ModelTurn parse_anthropic_tools_response(const std::string& body) {
  json j = parse_or_throw(body, "anthropic");
  if (!j.contains("content") || !j["content"].is_array()) {
    throw StageError("anthropic: unexpected response: " + body.substr(0, 300), ErrorCategory::kTerminal);
  }
  ModelTurn turn;
  for (const json& block : j["content"]) {
    const std::string type = block.is_object() ? block.value("type", std::string()) : "";
    if (type == "text" && block.contains("text") && block["text"].is_string()) {
      turn.text += block["text"].get<std::string>();
    } else if (type == "tool_use") {
      ModelToolCall call;
      call.id = block.value("id", std::string());
      call.name = block.value("name", std::string());
      call.arguments = block.contains("input") && block["input"].is_object() ? block["input"] : json::object();
      turn.tool_calls.push_back(std::move(call));
    }
  }
  const json usage = j.value("usage", json::object());
  turn.input_tokens = integer(usage, "input_tokens") + integer(usage, "cache_creation_input_tokens") +
                      integer(usage, "cache_read_input_tokens");
  turn.output_tokens = integer(usage, "output_tokens");
  turn.model = j.value("model", std::string());
  return turn;
}

}  // namespace attractor
