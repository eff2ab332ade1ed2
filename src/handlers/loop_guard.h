#pragma once
/// \file
/// `loop_guard` (docs/retrieval.md): bounds a retry loop such as manage_context_budget's
/// summarize-and-retry. Attributes:
/// - `max_turn_loops_from_settings` (required): names a graph attribute (a pipeline setting)
///   holding the number of allowed passes, an integer >= 0;
/// - `on_allow`, `on_deny` (required): the nodes to route to (through `suggested_next_ids`; the
///   preferred label is "allow" or "deny" as well).
/// Each execution counts one pass in context key `loop_guard.<node id>`. While the count is at most
/// the limit the guard allows; the pass that exceeds it is denied and resets the count to 0, so a
/// later traversal of the same loop (a new turn) gets the full allowance again. The decision is
/// also recorded in context key `loop_guard_last` ({node, count, max, decision}).

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class LoopGuardHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
};

/// The description of the `loop_guard` handler type (registry, lint, engine and reference read it).
const HandlerDescription& loop_guard_description();

}  // namespace attractor
