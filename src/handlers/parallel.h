#pragma once
/// \file
/// `parallel` (§4.8): runs every outgoing edge's target as a branch, concurrently (threads, at most
/// `max_parallel`, default 4), each on a deep clone of the context. A branch runs until the fan-in
/// node the branches converge on (the nearest `parallel.fan_in` node reachable from every branch),
/// an exit node, or a node with no eligible outgoing edge. Join policies: `wait_all` (default;
/// SUCCESS when no branch failed, else PARTIAL_SUCCESS, FAIL when every branch failed) and
/// `first_success` (SUCCESS once one branch succeeds, the others are cancelled; FAIL when none
/// does). `parallel.results` holds one object per branch in edge order: id, status, notes,
/// failure_reason, last_node, last_response, completed_nodes, context_changes, cancelled. The
/// traversal then continues at the fan-in node, so branch nodes never run twice; without a fan-in
/// the run ends after the parallel node (at the branches' common exit, if they share one).
/// Branch context changes are not merged into the parent (§3.8).

#include <string>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class ParallelHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing itself; its branches' stages go through the engine, which flushes as they need.
};

/// The fan-in node where the branches of `parallel_node` converge; "" when there is none.
std::string find_fan_in(const Graph& graph, const HandlerCatalog& handlers, const std::string& parallel_node);

/// The description of the `parallel` handler type (registry, lint, engine and reference read it).
const HandlerDescription& parallel_description();

}  // namespace attractor
