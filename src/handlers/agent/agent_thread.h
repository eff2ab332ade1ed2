#pragma once
/// \file
/// A coding-agent conversation as thread-session messages and back, so that `full`-fidelity
/// stages sharing a thread continue the whole tool conversation (coding-agent-loop spec §2.5,
/// docs/fidelity.md §3). Each message keeps a text rendering in `content` for backends that do
/// not call tools, and its structured form (tool calls, or the call a result answers) in `agent`.

#include <vector>

#include "attractor/model/chat_message.h"
#include "handlers/agent/agent_model.h"

namespace attractor {

/// Thread messages for agent messages: assistant turns with their calls, tool results as user
/// messages naming the call.
std::vector<ChatMessage> to_thread_messages(const std::vector<AgentMessage>& messages);

/// Agent messages for a thread's history: structured messages restored exactly, plain ones by
/// role; system messages are left out (the agent sends its own system prompt).
std::vector<AgentMessage> from_thread_messages(const std::vector<ChatMessage>& messages);

}  // namespace attractor
