#include "handlers/agent/agent_thread.h"

#include <fmt/format.h>

namespace attractor {

namespace {

using nlohmann::json;

ChatMessage assistant_message(const AgentMessage& m) {
  ChatMessage c{"assistant", m.text, nullptr};
  if (m.tool_calls.empty()) return c;
  for (const ModelToolCall& call : m.tool_calls) {
    if (!c.content.empty()) c.content += '\n';
    c.content += fmt::format("[tool call {} {}]", call.name,
                             call.arguments.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  c.agent = {{"text", m.text}, {"tool_calls", tool_calls_json(m.tool_calls)}};
  return c;
}

ChatMessage tool_result_message(const AgentMessage& m) {
  ChatMessage c{"user", m.is_error ? "[tool result, error]\n" : "[tool result]\n", nullptr};
  c.content += m.text;
  c.agent = {{"tool_call_id", m.tool_call_id}, {"is_error", m.is_error}, {"output", m.text}};
  return c;
}

AgentMessage structured_message(const ChatMessage& c) {
  if (c.agent.contains("tool_call_id")) {
    return AgentMessage::tool_result(c.agent.value("tool_call_id", std::string()),
                                     c.agent.value("output", std::string()), c.agent.value("is_error", false));
  }
  AgentMessage m;
  m.role = AgentMessage::Role::kAssistant;
  m.text = c.agent.value("text", std::string());
  for (const json& call : c.agent.value("tool_calls", json::array())) {
    m.tool_calls.push_back(
        {call.value("id", std::string()), call.value("name", std::string()), call.value("arguments", json::object())});
  }
  return m;
}

}  // namespace

std::vector<ChatMessage> to_thread_messages(const std::vector<AgentMessage>& messages) {
  std::vector<ChatMessage> out;
  out.reserve(messages.size());
  for (const AgentMessage& m : messages) {
    switch (m.role) {
      case AgentMessage::Role::kUser: out.push_back({"user", m.text, nullptr}); break;
      case AgentMessage::Role::kAssistant: out.push_back(assistant_message(m)); break;
      case AgentMessage::Role::kToolResult: out.push_back(tool_result_message(m)); break;
    }
  }
  return out;
}

std::vector<AgentMessage> from_thread_messages(const std::vector<ChatMessage>& messages) {
  std::vector<AgentMessage> out;
  for (const ChatMessage& c : messages) {
    if (c.role == "system") continue;
    if (c.agent.is_object()) {
      out.push_back(structured_message(c));
      continue;
    }
    AgentMessage m;
    m.role = c.role == "assistant" ? AgentMessage::Role::kAssistant : AgentMessage::Role::kUser;
    m.text = c.content;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace attractor
