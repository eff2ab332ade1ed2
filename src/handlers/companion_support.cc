#include "handlers/companion_support.h"

#include <fmt/format.h>

#include "attractor/base/json_limits.h"

namespace attractor {

void throw_step_error(const NodeData& node, const std::string& type, const std::string& field,
                      const std::string& problem) {
  throw StageError(fmt::format("{} node '{}': {}: {}", type, node.id, field, problem), ErrorCategory::kTerminal);
}

std::string route_attribute(const NodeData& node, const Graph& graph, const std::string& type, const std::string& field,
                            bool required) {
  std::string target = node.get(field);
  if (target.empty()) {
    if (required) throw_step_error(node, type, field, "required (the id of the node to route to)");
    return "";
  }
  if (!graph.find(target)) throw_step_error(node, type, field, "'" + target + "' is not a node of this graph");
  return target;
}

Outcome routed_success(const std::string& notes, const std::string& target) {
  Outcome o = Outcome::success(notes);
  if (!target.empty()) o.suggested_next_ids = {target};
  return o;
}

std::optional<nlohmann::json> json_attribute(const NodeData& node, const std::string& type, const std::string& field) {
  auto v = node.find(field);
  if (!v || v->text().find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  nlohmann::json j = parse_json_or_discarded(v->text());
  if (j.is_discarded()) throw_step_error(node, type, field, "not valid JSON: " + std::string(v->text()));
  return j;
}

}  // namespace attractor
