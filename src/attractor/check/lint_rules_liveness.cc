// exit_reachable and dead_end: every node the run can enter has a way on to the exit node.
//
// Both look only at nodes the start reaches (the reachability rule reports the others) and count
// every edge, whatever its condition: a failure route is a route. A non-exit node without
// outgoing edges is a dead end. Of the nodes that cannot reach the exit, the root causes are the
// dead ends and the loops that no edge leaves (strongly connected components that are sinks of
// the condensation); every other stuck node only flows into one of them, so it is not reported
// again.

#include <algorithm>
#include <optional>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/graph/strong_components.hpp>

#include "attractor/check/lint_rules.h"

namespace attractor::lint_detail {
namespace {

/// Marks every vertex that a breadth-first search of `g` from `source` discovers.
template <typename G>
std::vector<bool> discovered_from(const G& g, Vertex source, std::size_t vertex_count) {
  std::vector<boost::default_color_type> color(vertex_count, boost::white_color);
  boost::breadth_first_search(
      g, source,
      boost::color_map(boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g))));
  std::vector<bool> seen(vertex_count);
  for (std::size_t v = 0; v < vertex_count; ++v) seen[v] = color[v] != boost::white_color;
  return seen;
}

/// The single start and exit node, or nullopt when another rule reports their absence.
std::optional<std::pair<Vertex, Vertex>> start_and_exit(const LintInput& in) {
  std::vector<Vertex> starts = in.start_nodes();
  std::vector<Vertex> exits = in.terminal_nodes();
  if (starts.size() != 1 || exits.size() != 1) return std::nullopt;
  return std::make_pair(starts[0], exits[0]);
}

/// What the liveness rules need: which nodes the start reaches and which reach the exit.
struct Liveness {
  Vertex exit;
  std::vector<bool> entered;     ///< reachable from the start
  std::vector<bool> can_finish;  ///< the exit is reachable from it
};

std::optional<Liveness> liveness(const LintInput& in) {
  const Graph& graph = in.graph();
  auto ends = start_and_exit(in);
  if (!ends) return std::nullopt;
  const BoostGraph& g = graph.boost();
  Liveness l{ends->second, discovered_from(g, ends->first, graph.node_count()),
             discovered_from(boost::make_reverse_graph(g), ends->second, graph.node_count())};
  return l;
}

bool is_dead_end(const Graph& graph, Vertex v, Vertex exit) {
  return v != exit && boost::out_degree(v, graph.boost()) == 0;
}

/// The stuck components that no edge leaves, each as its members in declaration order.
std::vector<std::vector<Vertex>> closed_loops(const Graph& graph, const Liveness& l) {
  // Only a node the start reaches but that cannot finish can be in such a loop; a sound pipeline
  // has none, and then the component search (and its per-component lists) is skipped.
  bool stuck = false;
  for (std::size_t v = 0; v < graph.node_count() && !stuck; ++v) stuck = l.entered[v] && !l.can_finish[v];
  if (!stuck) return {};
  const BoostGraph& g = graph.boost();
  std::vector<int> component(graph.node_count());
  int count = boost::strong_components(
      g, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, g)));
  std::vector<std::vector<Vertex>> members(static_cast<std::size_t>(count));
  std::vector<bool> leaves(static_cast<std::size_t>(count), false);
  for (Vertex v : graph.nodes()) {
    members[static_cast<std::size_t>(component[v])].push_back(v);
    for (Edge e : graph.out_edges(v)) {
      if (component[boost::target(e, g)] != component[v]) leaves[static_cast<std::size_t>(component[v])] = true;
    }
  }
  std::vector<std::vector<Vertex>> loops;
  for (std::size_t c = 0; c < members.size(); ++c) {
    Vertex first = members[c].front();
    if (leaves[c] || !l.entered[first] || l.can_finish[first] || is_dead_end(graph, first, l.exit)) continue;
    loops.push_back(members[c]);
  }
  std::sort(loops.begin(), loops.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return loops;
}

std::string quoted_ids(const Graph& graph, const std::vector<Vertex>& vertices) {
  std::vector<std::string> ids;
  for (Vertex v : vertices) ids.push_back("'" + graph.node(v).id + "'");
  return join(ids);
}

}  // namespace

LintRulePtr exit_reachable_rule() {
  return make_rule("exit_reachable", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    std::optional<Liveness> l = liveness(in);
    if (!l) return;
    const std::string& exit_id = graph.node(l->exit).id;
    std::optional<SpellingIndex> declared;
    for (const std::vector<Vertex>& loop : closed_loops(graph, *l)) {
      const NodeData& first = graph.node(loop.front());
      std::string message = loop.size() == 1
                                ? "node '" + first.id + "' loops back to itself and no edge leaves it, so exit node '" +
                                      exit_id + "' cannot be reached from it"
                                : "nodes " + quoted_ids(graph, loop) +
                                      " form a loop that no edge leaves, so exit node '" + exit_id +
                                      "' cannot be reached from them";
      out.push_back(make_diagnostic("exit_reachable", Severity::kError, message, first.id,
                                    "add an edge from one of them toward '" + exit_id +
                                        "' (a failure route such as [condition=\"outcome=fail\"] counts)",
                                    first.location));
    }
  });
}

LintRulePtr dead_end_rule() {
  return make_rule("dead_end", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    std::optional<Liveness> l = liveness(in);
    if (!l) return;
    const std::string& exit_id = graph.node(l->exit).id;
    std::optional<SpellingIndex> declared;
    for (Vertex v : graph.nodes()) {
      if (!l->entered[v] || !is_dead_end(graph, v, l->exit)) continue;
      const NodeData& node = graph.node(v);
      if (!declared) declared = declared_node_ids(graph);
      std::string fix = misspelt_node_fix(graph, v, *declared);
      if (fix.empty()) fix = "add an edge from '" + node.id + "' to the next stage or to '" + exit_id + "'";
      out.push_back(make_diagnostic("dead_end", Severity::kError,
                                    "node '" + node.id +
                                        "' has no outgoing edge, so a run that enters it stops "
                                        "there without reaching exit node '" +
                                        exit_id + "'",
                                    node.id, std::move(fix), node.location));
    }
  });
}

}  // namespace attractor::lint_detail
