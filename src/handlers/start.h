#pragma once
/// \file
/// `start` (§4.3): the entry point; does nothing and succeeds.

#include "attractor/handler.h"

namespace attractor {

class StartHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
  bool queues_writes() const override { return true; }
};

}  // namespace attractor
