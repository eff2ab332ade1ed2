#include "attractor/model/node_roles.h"

namespace attractor {
namespace {

std::vector<Vertex> find_role(const Graph& graph, std::string_view shape, std::string_view id_a,
                              std::string_view id_b) {
  std::vector<Vertex> by_shape, by_id;
  for (Vertex v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    auto value = node.find("shape");
    if ((value ? value->text() : std::string_view("box")) == shape) by_shape.push_back(v);
    if (node.id == id_a || node.id == id_b) by_id.push_back(v);
  }
  return by_shape.empty() ? by_id : by_shape;
}

}  // namespace

std::vector<Vertex> find_start_nodes(const Graph& graph) { return find_role(graph, "Mdiamond", "start", "Start"); }

std::vector<Vertex> find_terminal_nodes(const Graph& graph) { return find_role(graph, "Msquare", "exit", "end"); }

std::optional<Vertex> find_start_node(const Graph& graph) {
  std::vector<Vertex> starts = find_start_nodes(graph);
  if (starts.empty()) return std::nullopt;
  return starts.front();
}

bool is_terminal_node(const Graph& graph, const NodeData& node) {
  if (node.shape() == "Msquare" || node.type() == "exit") return true;
  if (node.id != "exit" && node.id != "end") return false;
  for (Vertex v : find_terminal_nodes(graph)) {
    if (graph.node(v).id == node.id) return true;
  }
  return false;
}

}  // namespace attractor
