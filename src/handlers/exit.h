#pragma once
/// \file
/// `exit` (§4.4): the exit point; does nothing and succeeds. Goal gates are the engine's job, and
/// the engine stops on reaching an exit node without executing it.

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class ExitHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
};

/// The description of the `exit` handler type (registry, lint, engine and reference read it).
const HandlerDescription& exit_description();

}  // namespace attractor
