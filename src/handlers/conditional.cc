#include "handlers/conditional.h"
#include "attractor/model/context_keys.h"

namespace attractor {

Outcome ConditionalHandler::execute(const NodeData& node, Context& context, const Graph&, const StageEnv&) {
  Outcome o = Outcome::success("Conditional node evaluated: " + node.id);
  StageStatus previous;
  if (parse_status(context.get_string(kOutcomeKey), &previous) && previous != StageStatus::kSkipped) {
    o.status = previous == StageStatus::kRetry ? StageStatus::kFail : previous;
    if (o.status == StageStatus::kFail) {
      o.failure_reason = "previous stage did not succeed";
      o.category = ErrorCategory::kTerminal;
    }
  }
  o.preferred_label = context.get_string(kPreferredLabelKey);
  return o;
}

const HandlerDescription& conditional_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "conditional";
    d.shapes = {"diamond"};
    d.summary = "A routing point: passes the previous outcome through so edge conditions decide.";
    HandlerTraits& t = d.traits;
    t.queues_writes = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
