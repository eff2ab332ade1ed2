#include "attractor/model/fidelity.h"

#include <algorithm>

namespace attractor {

const std::vector<std::string>& fidelity_modes() {
  static const std::vector<std::string> modes = {
      std::string(kFidelityFull),       std::string(kFidelityTruncate),      std::string(kFidelityCompact),
      std::string(kFidelitySummaryLow), std::string(kFidelitySummaryMedium), std::string(kFidelitySummaryHigh)};
  return modes;
}

bool is_valid_fidelity(std::string_view mode) {
  const auto& modes = fidelity_modes();
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

std::string effective_fidelity(std::string_view mode) {
  return std::string(is_valid_fidelity(mode) ? mode : kDefaultFidelity);
}

std::string node_fallback_fidelity(const NodeData& node, const Graph& graph) {
  if (std::string f = node.fidelity(); !f.empty()) return f;
  if (std::string f = graph.data().default_fidelity(); !f.empty()) return f;
  return std::string(kDefaultFidelity);
}

std::string resolve_fidelity(const EdgeData* edge, const NodeData& node, const Graph& graph) {
  if (edge) {
    if (std::string f = edge->fidelity(); !f.empty()) return f;
  }
  return node_fallback_fidelity(node, graph);
}

std::string resolve_thread_id(const EdgeData* edge, const NodeData& node, const Graph& graph,
                              const std::string& previous_node) {
  if (std::string t = node.thread_id(); !t.empty()) return t;
  if (edge) {
    if (std::string t = edge->thread_id(); !t.empty()) return t;
  }
  if (std::string t = graph.data().get("default_thread_id"); !t.empty()) return t;
  std::vector<std::string> classes = node.classes();
  if (!classes.empty()) return classes.front();
  return previous_node;
}

StageFidelity resolve_stage_fidelity(const EdgeData* edge, const NodeData& node, const Graph& graph,
                                     const std::string& previous_node) {
  StageFidelity f;
  f.mode = resolve_fidelity(edge, node, graph);
  f.thread_id = resolve_thread_id(edge, node, graph, previous_node);
  f.previous_node = previous_node;
  return f;
}

}  // namespace attractor
