#pragma once
/// \file
/// The conversation the engine prepares for a stage that prompts an LLM (docs/fidelity.md §4-5):
/// under `full` the thread to continue, otherwise the preamble that opens a fresh conversation.
/// The handler puts the preamble in front of its prompt, sends the history and appends its
/// exchange to the session; it never resolves fidelity or builds preambles itself.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/engine/thread_sessions.h"
#include "attractor/model/chat_message.h"
#include "attractor/model/context.h"
#include "attractor/model/graph.h"

namespace attractor {

class StageHistory;
struct PreambleMemory;

/// The conversation of one LLM stage execution.
struct StageConversation {
  /// Under `full`: the thread's session, to which the stage appends its exchange.
  ThreadSessionPtr session;
  /// The thread's messages before this stage (under `full`), oldest first.
  std::vector<ChatMessage> history;
  /// The mode of `preamble`; "" when the stage has no preamble (a `full` thread with messages).
  std::string preamble_mode;
  /// Put in front of the prompt with a blank line between (the text ends with a newline).
  std::string preamble;
  /// Exact token count of `preamble` with the graph's counter.
  std::size_t preamble_tokens = 0;
};

/// Prepares the conversation of `node` running in `mode` (a valid fidelity) on `thread_id`.
/// Under `full` the thread's session is taken from `sessions` (created when missing; none when
/// `sessions` is null) and a thread without messages opens with a `summary:high` preamble; any
/// other mode gets the preamble of that mode, built from `context`, `graph`, `history` (may be
/// null) and `attempt`, reusing the run's `memory` of earlier preambles (may be null). Throws
/// StageError (terminal) when the graph's token counter cannot be loaded.
StageConversation open_conversation(const NodeData& node, const Context& context, const Graph& graph,
                                    std::string_view mode, const std::string& thread_id, ThreadSessions* sessions,
                                    const StageHistory* history, std::int64_t attempt,
                                    PreambleMemory* memory = nullptr);

}  // namespace attractor
