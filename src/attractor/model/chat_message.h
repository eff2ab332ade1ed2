#pragma once
/// \file
/// One message of an LLM conversation, shared by the engine's thread sessions and the codergen
/// backends.

#include <string>

#include <nlohmann/json.hpp>

namespace attractor {

/// One message of a conversation: role "system", "user" or "assistant".
struct ChatMessage {
  std::string role;
  /// The text. For a tool call or a tool result (`agent` set) a plain-text rendering of it, which
  /// is what backends that do not call tools send.
  std::string content;
  /// The coding agent's structured form of a tool exchange (handlers/agent/agent_thread.h): the
  /// calls an assistant message made, or the call a result answers. Null for plain text.
  nlohmann::json agent;
  bool operator==(const ChatMessage&) const = default;
};

}  // namespace attractor
