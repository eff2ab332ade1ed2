#pragma once
/// \file
/// `manage_context_budget` (docs/retrieval.md): appends the retrieval buffer (`node_texts`) to the prompt
/// context (`context_blocks`) only when everything fits into `max_context_tokens`, compacting code
/// per `compact_code` rules first; otherwise changes nothing and routes to `on_over`.
///
/// Reads context `context_blocks` (list of strings, absent = []), `node_texts` (list of objects
/// with a string `text`, optional `id`/`node_id`, `path`/`source`), `inbox_last_consumed` (list of
/// consumed inbox messages), graph attribute `max_context_tokens` (required, > 0), node attributes
/// `on_ok`, `on_over` (required), `compact_code` (optional, see compact_code_rules.h) and
/// `divide_new_content` (optional). Tokens are counted with `token_counter_for_graph`.
///
/// Per node, in order: the classifier labels the text (`sql` / `dotnet` / `unknown`); the rules of
/// that language are tried in order and the first whose policy fires wins: `always`; `threshold`
/// when running total + the raw formatted node > threshold * max_context_tokens; `demand` when a
/// consumed message has `target_step_id` = this node and `topic` = `inbox_key`. A fired rule
/// compacts the text (code_compactor.h). Each node becomes one block (`format_node_block`).
///
/// Totals: context = sum of the tokens of each existing block; buffer = the divider block (when
/// `divide_new_content` is set and there are nodes) + each formatted node. buffer >
/// max_context_tokens is the terminal `PIPELINE_BUDGET_MISCONFIG` error; context + buffer <=
/// max_context_tokens appends divider + blocks, clears `node_texts` and routes `on_ok`; otherwise
/// nothing is written, the consumed demand messages (those of any demand rule) are re-enqueued to
/// this node in `Outcome::messages`, and the route is `on_over`. Both routes are SUCCESS.
/// Emits `MANAGE_CONTEXT_BUDGET` with per-node language, kind, policy (null when no rule fired),
/// compacted flag, tokens_before / tokens_after (formatted block), and the totals and decision.

#include <string>
#include <string_view>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class ManageContextBudgetHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
};

/// The seed-003 block for one node: lines `--- NODE ---`, `id: <id>` (when given),
/// `path: <path>` (when given), `language: <language>`, `compact: true|false`, `text:`, then the
/// text. Lines are joined with '\n'; no trailing newline is added.
std::string format_node_block(std::string_view id, std::string_view path, std::string_view language, bool compact,
                              std::string_view text);

/// The description of the `manage_context_budget` handler type (registry, lint, engine and reference read it).
const HandlerDescription& manage_context_budget_description();

}  // namespace attractor
