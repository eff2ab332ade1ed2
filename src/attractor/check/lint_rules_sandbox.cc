// sandbox_literal: sandbox paths are taken as written, so a `$` in them is refused rather than
// left for a reader to think context substitution widens the sandbox (docs/security.md).

#include "attractor/check/lint_rules.h"

namespace attractor::lint_detail {

namespace {

void check_sandbox_paths(const AttributeBag& attributes, const std::string& owner, const std::string& node_id,
                         const SourceLocation& fallback, std::vector<Diagnostic>& out) {
  for (const char* key : {"sandbox.read", "sandbox.write"}) {
    auto value = attributes.find(key);
    if (!value || value->text().find('$') == std::string_view::npos) continue;
    out.push_back(make_diagnostic("sandbox_literal", Severity::kError,
                                  owner + " sets " + key + "=\"" + std::string(value->text()) +
                                      "\": sandbox paths are never expanded from context, so `$` cannot be used",
                                  node_id, "write the path itself (`~/` is the home directory)",
                                  value_location(value, fallback)));
  }
}

}  // namespace

LintRulePtr sandbox_literal_rule() {
  return make_rule("sandbox_literal", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    check_sandbox_paths(graph.data(), "the graph", "", SourceLocation{}, out);
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      check_sandbox_paths(node, "node '" + node.id + "'", node.id, node.location, out);
    }
  });
}

}  // namespace attractor::lint_detail
