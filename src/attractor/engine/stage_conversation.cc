#include "attractor/engine/stage_conversation.h"

#include <memory>

#include "attractor/engine/preamble.h"
#include "attractor/model/fidelity.h"
#include "attractor/model/outcome.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {

namespace {

std::shared_ptr<const TokenCounter> preamble_counter(const Graph& graph) {
  try {
    return token_counter_for_graph(graph);
  } catch (const std::exception& e) {
    throw StageError(std::string("cannot measure the fidelity preamble: ") + e.what(), ErrorCategory::kTerminal);
  }
}

}  // namespace

StageConversation open_conversation(const NodeData& node, const Context& context, const Graph& graph,
                                    std::string_view mode, const std::string& thread_id, ThreadSessions* sessions,
                                    const StageHistory* history, std::int64_t attempt, PreambleMemory* memory) {
  StageConversation conversation;
  if (mode == kFidelityFull) {
    if (sessions) conversation.session = sessions->get_or_create(thread_id);
    if (conversation.session) conversation.history = conversation.session->messages();
    // A new thread has no conversation to continue: it opens with the most detailed summary.
    if (conversation.history.empty()) conversation.preamble_mode = std::string(kFidelitySummaryHigh);
  } else {
    conversation.preamble_mode = std::string(mode);
  }
  if (conversation.preamble_mode.empty()) return conversation;
  std::shared_ptr<const TokenCounter> counter = preamble_counter(graph);
  const std::string& mode_built = conversation.preamble_mode;
  std::size_t budget = preamble_budget(mode_built);
  Preamble preamble = build_preamble(
      mode_built, gather_preamble_input(node, context, graph, history, attempt, preamble_record_limit(mode_built)),
      *counter, budget ? budget : preamble_budget(kFidelityCompact), memory);
  conversation.preamble = std::move(preamble.text);
  conversation.preamble_tokens = preamble.tokens;
  return conversation;
}

}  // namespace attractor
