#include <boost/graph/breadth_first_search.hpp>

#include "attractor/check/lint_rules.h"
#include "attractor/model/node_roles.h"

namespace attractor::lint_detail {
namespace {

std::vector<std::string> ids_of(const Graph& graph, const std::vector<Vertex>& vertices) {
  std::vector<std::string> ids;
  for (Vertex v : vertices) ids.push_back(graph.node(v).id);
  return ids;
}

void check_count(const Graph& graph, const std::vector<Vertex>& found, const char* rule, const char* what,
                 const char* shape, std::vector<Diagnostic>& out) {
  if (found.empty()) {
    out.push_back(make_diagnostic(
        rule, Severity::kError, std::string("pipeline has no ") + what + " node (shape=" + shape + ")", "",
        std::string("add one, e.g. ") + (std::string_view(shape) == "Mdiamond" ? "start" : "exit") +
            " [shape=" + shape + "]",
        {}));
    return;
  }
  if (found.size() == 1) return;
  const NodeData& second = graph.node(found[1]);
  out.push_back(make_diagnostic(rule, Severity::kError,
                                "pipeline has " + std::to_string(found.size()) + " " + what + " nodes (" +
                                    join(ids_of(graph, found)) + "); exactly one is required",
                                second.id, std::string("keep one ") + what + " node and remove the others",
                                second.location));
}

}  // namespace

LintRulePtr start_node_rule() {
  return make_rule("start_node", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    check_count(graph, in.start_nodes(), "start_node", "start", "Mdiamond", out);
  });
}

LintRulePtr terminal_node_rule() {
  return make_rule("terminal_node", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    check_count(graph, in.terminal_nodes(), "terminal_node", "exit", "Msquare", out);
  });
}

LintRulePtr reachability_rule() {
  return make_rule("reachability", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    std::vector<Vertex> starts = in.start_nodes();
    if (starts.size() != 1) return;
    const BoostGraph& g = graph.boost();
    // Every vertex the search from the start discovers turns non-white.
    std::vector<boost::default_color_type> color(graph.node_count(), boost::white_color);
    boost::breadth_first_search(
        g, starts[0],
        boost::color_map(boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g))));
    const std::string& start_id = graph.node(starts[0]).id;
    for (Vertex v : graph.nodes()) {
      if (color[v] != boost::white_color) continue;
      const NodeData& node = graph.node(v);
      out.push_back(make_diagnostic("reachability", Severity::kError,
                                    "node '" + node.id + "' is not reachable from start node '" + start_id + "'",
                                    node.id, "add an edge into '" + node.id + "' from a reachable node, or remove it",
                                    node.location));
    }
  });
}

/// An edge always joins two vertices, but a node whose id was changed after it was added
/// (`NodeData::id` is writable, e.g. by a transform) can no longer be found by that id, so routes
/// to it and lookups of it fail: such an end is an unknown node.
LintRulePtr edge_target_exists_rule() {
  return make_rule("edge_target_exists", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    std::vector<char> unknown(graph.node_count(), 0);
    bool any = false;
    for (Vertex v : graph.nodes()) {
      unknown[v] = !graph.find(graph.node(v).id);
      any = any || unknown[v];
    }
    if (!any) return;
    const BoostGraph& g = graph.boost();
    for (Edge e : graph.edges()) {
      for (bool is_target : {false, true}) {
        Vertex end = is_target ? boost::target(e, g) : boost::source(e, g);
        if (!unknown[end]) continue;
        const std::string& id = graph.node(end).id;
        Diagnostic d = make_diagnostic("edge_target_exists", Severity::kError,
                                       "edge " + graph.from_id(e) + " -> " + graph.to_id(e) +
                                           (is_target ? " targets" : " starts at") + " unknown node '" + id + "'",
                                       "", "declare node '" + id + "' or correct the edge", graph.edge(e).location);
        d.edge = std::make_pair(graph.from_id(e), graph.to_id(e));
        out.push_back(std::move(d));
      }
    }
  });
}

LintRulePtr start_no_incoming_rule() {
  return make_rule("start_no_incoming", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    for (Vertex v : in.start_nodes()) {
      const NodeData& start = graph.node(v);
      for (Edge e : graph.in_edges(v)) {
        const EdgeData& edge = graph.edge(e);
        const std::string& from = graph.from_id(e);
        Diagnostic d = make_diagnostic("start_no_incoming", Severity::kError,
                                       "start node '" + start.id + "' has an incoming edge from '" + from + "'",
                                       start.id,
                                       "remove the edge " + from + " -> " + start.id +
                                           "; loop back to the first stage after the start node instead",
                                       edge.location.known() ? edge.location : start.location);
        d.edge = std::make_pair(from, start.id);
        out.push_back(std::move(d));
      }
    }
  });
}

LintRulePtr exit_no_outgoing_rule() {
  return make_rule("exit_no_outgoing", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    for (Vertex v : in.terminal_nodes()) {
      const NodeData& exit = graph.node(v);
      for (Edge e : graph.out_edges(v)) {
        const EdgeData& edge = graph.edge(e);
        const std::string& to = graph.to_id(e);
        Diagnostic d = make_diagnostic("exit_no_outgoing", Severity::kError,
                                       "exit node '" + exit.id + "' has an outgoing edge to '" + to + "'", exit.id,
                                       "remove the edge " + exit.id + " -> " + to + "; the run ends at the exit node",
                                       edge.location.known() ? edge.location : exit.location);
        d.edge = std::make_pair(exit.id, to);
        out.push_back(std::move(d));
      }
    }
  });
}

}  // namespace attractor::lint_detail
