#include "handlers/loop_guard.h"

#include <fmt/format.h>

#include "handlers/companion_support.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace {
constexpr const char* kType = "loop_guard";
}

Outcome LoopGuardHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::string setting = node.get("max_turn_loops_from_settings");
  if (setting.empty()) {
    throw_step_error(node, kType, "max_turn_loops_from_settings", "required (the name of a graph attribute)");
  }
  if (!graph.data().has(setting)) {
    throw_step_error(node, kType, "max_turn_loops_from_settings", "setting '" + setting + "' is not a graph attribute");
  }
  std::optional<std::int64_t> max = graph.data().get_integer(setting);
  if (!max || *max < 0) {
    throw_step_error(node, kType, "max_turn_loops_from_settings",
                     "setting '" + setting + "' must be an integer >= 0, got '" + graph.data().get(setting) + "'");
  }
  std::string allow = route_attribute(node, graph, kType, "on_allow", true);
  std::string deny = route_attribute(node, graph, kType, "on_deny", true);

  std::string key = "loop_guard." + node.id;
  std::int64_t count = 1;
  if (auto v = context.get(key); v && v->is_number_integer()) count = v->get<std::int64_t>() + 1;
  bool allowed = count <= *max;
  std::string decision = allowed ? "allow" : "deny";
  Outcome o = routed_success(fmt::format("loop_guard {}: pass {} of {}: {}", node.id, count, *max, decision),
                             allowed ? allow : deny);
  o.preferred_label = decision;
  o.context_updates[key] = allowed ? count : 0;
  o.context_updates["loop_guard_last"] = {{"node", node.id}, {"count", count}, {"max", *max}, {"decision", decision}};
  env.emit(kLoopGuardEvent, {{"name", node.id}, {"count", count}, {"max", *max}, {"decision", decision}});
  return o;
}

const HandlerDescription& loop_guard_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "loop_guard";
    d.shapes = {};
    d.summary = "Counts passes through a loop and routes out when a limit is reached.";
    d.attributes = {
        {"max_turn_loops_from_settings", AttributeType::kString, "",
         "Name of the graph attribute that holds the passes allowed, an integer >= 0 (required)."},
        {"on_allow", AttributeType::kNodeId, "", "Node to continue at while the count is within the limit (required)."},
        {"on_deny", AttributeType::kNodeId, "",
         "Node to continue at once the limit is exceeded; the count starts again (required)."},
    };
    return d;
  }();
  return description;
}

}  // namespace attractor
