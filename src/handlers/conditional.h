#pragma once
/// \file
/// `conditional` (§4.7): a pass-through; the engine routes on the outgoing edges' conditions.
/// "Pass-through" is taken literally: the node's outcome repeats the previous stage's status
/// (the context's `outcome`) and preferred label, so `gate -> fix [condition="outcome!=success"]`
/// behind a diamond sees the stage before it, as the spec's branching example expects. A passed
/// through failure is terminal (never retried) and is routed by conditions only. With no previous
/// outcome the node succeeds.

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class ConditionalHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
};

/// The description of the `conditional` handler type (registry, lint, engine and reference read it).
const HandlerDescription& conditional_description();

}  // namespace attractor
