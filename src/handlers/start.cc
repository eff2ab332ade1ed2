#include "handlers/start.h"

namespace attractor {

Outcome StartHandler::execute(const NodeData& node, Context&, const Graph&, const StageEnv&) {
  return Outcome::success("Pipeline started at " + node.id);
}

const HandlerDescription& start_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "start";
    d.shapes = {"Mdiamond"};
    d.summary = "The pipeline entry point; records the start and does nothing else.";
    HandlerTraits& t = d.traits;
    t.start = true;
    t.queues_writes = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
