#include "handlers/exit.h"

namespace attractor {

Outcome ExitHandler::execute(const NodeData& node, Context&, const Graph&, const StageEnv&) {
  return Outcome::success("Pipeline exit " + node.id);
}

}  // namespace attractor
