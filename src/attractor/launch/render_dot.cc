#include "attractor/launch/render_dot.h"

#include <set>
#include <string_view>

#include "parser/dot_writer.h"

namespace attractor {
namespace {

const std::set<std::string, std::less<>>& graph_presentation_keys() {
  static const std::set<std::string, std::less<>> keys = {
      "rankdir", "fontname", "fontsize",  "fontcolor", "bgcolor", "nodesep",     "ranksep", "splines",  "size",
      "ratio",   "labelloc", "labeljust", "pad",       "margin",  "concentrate", "newrank", "compound", "dpi"};
  return keys;
}

const std::set<std::string, std::less<>>& node_presentation_keys() {
  static const std::set<std::string, std::less<>> keys = {
      "shape", "fontname", "fontsize",  "fontcolor", "color",  "fillcolor",   "style",   "penwidth",
      "width", "height",   "fixedsize", "margin",    "xlabel", "peripheries", "tooltip", "group"};
  return keys;
}

const std::set<std::string, std::less<>>& edge_presentation_keys() {
  static const std::set<std::string, std::less<>> keys = {
      "color",    "style",     "penwidth", "arrowhead",  "arrowtail", "arrowsize", "fontname",
      "fontsize", "fontcolor", "xlabel",   "constraint", "minlen",    "tooltip",   "dir"};
  return keys;
}

void append_attr(std::string& out, bool& first, std::string_view key, std::string_view value) {
  out += first ? " [" : ", ";
  first = false;
  out.append(key);
  out += '=';
  out += quote_dot_string(value);
}

const char* status_fill(std::string_view status) {
  if (status == "success") return "#c8e6c9";
  if (status == "partial_success") return "#fff9c4";
  if (status == "retry") return "#ffe0b2";
  if (status == "fail") return "#ffcdd2";
  if (status == "skipped") return "#eeeeee";
  if (status == "running") return "#bbdefb";
  return nullptr;
}

}  // namespace

std::string render_dot(const Graph& graph, const HandlerCatalog& handlers, const RunOverlay* overlay) {
  std::string out = "digraph " + quote_dot_string(graph.name().empty() ? "pipeline" : graph.name()) + " {\n";
  const GraphData& gd = graph.data();
  std::string title = gd.label().empty() ? gd.goal() : gd.label();
  bool first = true;
  std::string graph_attrs;
  if (!title.empty()) append_attr(graph_attrs, first, "label", title);
  for (const auto& [key, value] : gd.attrs) {
    if (graph_presentation_keys().count(key)) append_attr(graph_attrs, first, key, value.text());
  }
  if (!first) out += "  graph" + graph_attrs + "];\n";

  // Edges taken: consecutive executions, plus the fan-out and fan-in edges of parallel blocks, whose
  // branches are recorded one after another rather than as consecutive hops.
  std::set<std::pair<std::string, std::string>> taken;
  if (overlay) {
    for (std::size_t i = 1; i < overlay->path.size(); ++i) taken.emplace(overlay->path[i - 1], overlay->path[i]);
    std::set<std::string> visited(overlay->path.begin(), overlay->path.end());
    const BoostGraph& g = graph.boost();
    for (const Edge& e : graph.edges()) {
      const NodeData& from = graph.node(boost::source(e, g));
      const NodeData& to = graph.node(boost::target(e, g));
      if (!visited.count(from.id) || !visited.count(to.id)) continue;
      if (handlers.traits(from).fans_out || handlers.traits(to).fans_in) taken.emplace(from.id, to.id);
    }
  }

  for (Vertex v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    std::string attrs;
    bool f = true;
    append_attr(attrs, f, "label", node.label());
    for (const auto& [key, value] : node.attrs) {
      if (node_presentation_keys().count(key) && !(overlay && (key == "fillcolor" || key == "style"))) {
        append_attr(attrs, f, key, value.text());
      }
    }
    if (!node.has("shape")) append_attr(attrs, f, "shape", "box");
    if (!node.has("tooltip")) {
      std::string tip = node.prompt();
      if (tip.empty()) tip = node.get("tool_command");
      if (!tip.empty()) append_attr(attrs, f, "tooltip", tip);
    }
    if (overlay) {
      auto it = overlay->node_status.find(node.id);
      if (it != overlay->node_status.end()) {
        if (const char* fill = status_fill(it->second)) {
          append_attr(attrs, f, "style", "filled");
          append_attr(attrs, f, "fillcolor", fill);
        }
      }
      if (node.id == overlay->current_node) append_attr(attrs, f, "penwidth", "3");
    }
    out += "  " + quote_dot_string(node.id) + attrs + "];\n";
  }

  for (const Edge& e : graph.edges()) {
    const EdgeData& edge = graph.edge(e);
    std::string attrs;
    bool f = true;
    std::string label = edge.label();
    std::string condition = edge.condition();
    if (!condition.empty()) label += (label.empty() ? "" : "\n") + ("[" + condition + "]");
    if (!label.empty()) append_attr(attrs, f, "label", label);
    for (const auto& [key, value] : edge.attrs) {
      if (edge_presentation_keys().count(key)) append_attr(attrs, f, key, value.text());
    }
    const std::string& from = graph.from_id(e);
    const std::string& to = graph.to_id(e);
    if (overlay && taken.count({from, to})) {
      append_attr(attrs, f, "penwidth", "3");
      append_attr(attrs, f, "color", "#1565c0");
    }
    out += "  " + quote_dot_string(from) + " -> " + quote_dot_string(to) + attrs + (f ? "" : "]") + ";\n";
  }
  out += "}\n";
  return out;
}

}  // namespace attractor
