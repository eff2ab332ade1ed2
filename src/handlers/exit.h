#pragma once
/// \file
/// `exit` (§4.4): the exit point; does nothing and succeeds. Goal gates are the engine's job, and
/// the engine stops on reaching an exit node without executing it.

#include "attractor/handler.h"

namespace attractor {

class ExitHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
  bool queues_writes() const override { return true; }
};

}  // namespace attractor
