#include "handlers/exit.h"

namespace attractor {

Outcome ExitHandler::execute(const NodeData& node, Context&, const Graph&, const StageEnv&) {
  return Outcome::success("Pipeline exit " + node.id);
}

const HandlerDescription& exit_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "exit";
    d.shapes = {"Msquare"};
    d.summary = "The pipeline exit; reaching it ends the run once the goal gates are satisfied.";
    HandlerTraits& t = d.traits;
    t.exit = true;
    t.queues_writes = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
