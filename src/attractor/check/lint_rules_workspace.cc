// worktree_parallel: a worktree run's parallel branches share the run's one worktree
// (docs/workspace.md, "Parallel branches"), so their edits land together in the fan-out node's
// commit and two branches that write one file race. Lint says so where that can happen.

#include "attractor/check/lint_rules.h"

namespace attractor::lint_detail {

LintRulePtr worktree_parallel_rule() {
  return make_rule("worktree_parallel", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    if (graph.data().get("workspace") != "worktree") return;
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      if (!in.handlers().traits(node).fans_out) continue;
      out.push_back(make_diagnostic(
          "worktree_parallel", Severity::kWarning,
          "node '" + node.id +
              "' runs its branches at once in the run's one worktree: their edits are committed together as "
              "its stage, and branches that write the same file overwrite each other",
          node.id, "let each branch write files of its own, or run the edits one after another", node.location));
    }
  });
}

}  // namespace attractor::lint_detail
