#pragma once
/// \file
/// One message of an LLM conversation, shared by the engine's thread sessions and the codergen
/// backends.

#include <string>

namespace attractor {

/// One message of a conversation: role "system", "user" or "assistant".
struct ChatMessage {
  std::string role;
  std::string content;
  bool operator==(const ChatMessage&) const = default;
};

}  // namespace attractor
