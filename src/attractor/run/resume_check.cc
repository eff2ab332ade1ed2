#include "attractor/run/resume_check.h"

#include <fmt/format.h>

namespace attractor {

std::optional<std::string> check_checkpoint_against_graph(const Checkpoint& checkpoint, const Graph& graph) {
  if (checkpoint.state != "running" && checkpoint.state != "success" && checkpoint.state != "fail") {
    return fmt::format("checkpoint state \"{}\" is not one of running, success, fail", checkpoint.state);
  }
  auto unknown = [&](const std::string& id, const char* field) -> std::optional<std::string> {
    if (id.empty() || graph.find(id)) return std::nullopt;
    return fmt::format("checkpoint {} names node \"{}\", which is not in graph \"{}\"", field, id, graph.name());
  };
  if (auto e = unknown(checkpoint.next_node, "next_node")) return e;
  if (auto e = unknown(checkpoint.current_node, "current_node")) return e;
  for (const std::string& id : checkpoint.completed_nodes) {
    if (auto e = unknown(id, "completed_nodes")) return e;
  }
  for (const auto& [id, outcome] : checkpoint.node_outcomes) {
    if (auto e = unknown(id, "node_outcomes")) return e;
  }
  for (const auto& [id, count] : checkpoint.visit_counts) {
    if (auto e = unknown(id, "visit_counts")) return e;
  }
  for (const auto& [id, count] : checkpoint.node_attempts) {
    if (auto e = unknown(id, "node_attempts")) return e;
  }
  for (const auto& [id, count] : checkpoint.node_retries) {
    if (auto e = unknown(id, "node_retries")) return e;
  }
  return std::nullopt;
}

}  // namespace attractor
