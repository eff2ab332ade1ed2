#include "handlers/start.h"

namespace attractor {

Outcome StartHandler::execute(const NodeData& node, Context&, const Graph&, const StageEnv&) {
  return Outcome::success("Pipeline started at " + node.id);
}

}  // namespace attractor
