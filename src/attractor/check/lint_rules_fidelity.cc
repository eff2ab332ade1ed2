// thread_id_fidelity: a `thread_id` only matters to stages whose fidelity resolves to `full`.

#include "attractor/model/fidelity.h"
#include "attractor/check/lint_rules.h"

namespace attractor::lint_detail {

LintRulePtr thread_id_fidelity_rule() {
  return make_rule("thread_id_fidelity", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      auto thread = node.find("thread_id");
      if (!thread || thread->text().empty()) continue;
      std::string fallback = node_fallback_fidelity(node, graph);
      if (fallback == kFidelityFull) continue;
      bool edge_full = false;
      for (Edge e : graph.in_edges(v)) edge_full = edge_full || graph.edge(e).fidelity() == kFidelityFull;
      if (edge_full) continue;
      out.push_back(make_diagnostic("thread_id_fidelity", Severity::kWarning,
                                    "node '" + node.id + "' sets thread_id \"" + std::string(thread->text()) +
                                        "\" but its fidelity is never full (it resolves to '" + fallback +
                                        "' and no incoming edge sets fidelity=full)",
                                    node.id, "set fidelity=full on the node or an incoming edge, or remove thread_id",
                                    value_location(thread, node.location)));
    }
    for (Edge e : graph.edges()) {
      const EdgeData& edge = graph.edge(e);
      auto thread = edge.find("thread_id");
      if (!thread || thread->text().empty()) continue;
      const NodeData& target = graph.node(boost::target(e, graph.boost()));
      const std::string& from = graph.from_id(e);
      std::string mode = edge.fidelity().empty() ? node_fallback_fidelity(target, graph) : edge.fidelity();
      if (mode == kFidelityFull) continue;
      Diagnostic d = make_diagnostic(
          "thread_id_fidelity", Severity::kWarning,
          "edge " + from + " -> " + target.id + " sets thread_id \"" + std::string(thread->text()) +
              "\" but the stage it enters never runs with fidelity full (it resolves to '" + mode + "')",
          "", "set fidelity=full on the edge or on node '" + target.id + "', or remove thread_id",
          value_location(thread, edge.location));
      d.edge = std::make_pair(from, target.id);
      out.push_back(std::move(d));
    }
  });
}

}  // namespace attractor::lint_detail
