#pragma once
/// \file
/// `start` (§4.3): the entry point; does nothing and succeeds.

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class StartHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
};

/// The description of the `start` handler type (registry, lint, engine and reference read it).
const HandlerDescription& start_description();

}  // namespace attractor
