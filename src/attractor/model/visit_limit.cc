#include "attractor/model/visit_limit.h"

#include <fmt/format.h>

namespace attractor {

VisitLimit visit_limit(const Graph& graph, const NodeData& node) {
  if (auto v = node.get_integer("max_visits"); v && *v >= 0) return {*v, "max_visits"};
  if (auto v = graph.data().get_integer("default_max_visits"); v && *v >= 0) return {*v, "default_max_visits"};
  return {kDefaultMaxVisits, ""};
}

std::string visit_limit_message(const std::string& node_id, const VisitLimit& limit, std::int64_t visit) {
  if (limit.source.empty()) {
    return fmt::format(
        "node `{}` exceeded max_visits={} (visit {}; the default cap: set max_visits on the node or "
        "default_max_visits on the graph to change it)",
        node_id, limit.limit, visit);
  }
  return fmt::format("node `{}` exceeded {}={} (visit {})", node_id, limit.source, limit.limit, visit);
}

}  // namespace attractor
