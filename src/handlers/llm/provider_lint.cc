#include "handlers/llm/provider_lint.h"

#include "attractor/base/closest_match.h"
#include "attractor/model/attribute_entry.h"

namespace attractor {

namespace {

/// The warning for `value` ("" when it names a provider), located at `at` (else `fallback`).
void check_value(const ProviderTable& table, const std::string& value, const std::string& node_id,
                 const std::optional<ValueView>& at, SourceLocation fallback, std::vector<Diagnostic>& out) {
  if (value.empty()) return;
  std::string canonical = table.canonical(value, nullptr);
  if (table.is_known(canonical)) return;
  const ProviderRecord* record = table.resolve(canonical).first;
  std::string message = record && !record->make && !record->refusal.empty()
                            ? record->refusal
                            : "unknown llm_provider '" + value + "' (expected " + table.choices() + ")";
  std::string guess = closest_match(canonical, table.spellings(), 2);
  std::string fix = guess.empty() ? "use one of: " + table.choices() : "did you mean '" + guess + "'?";
  out.push_back(
      make_diagnostic(kLlmProviderRule, Severity::kWarning, message, node_id, fix, value_location(at, fallback)));
}

}  // namespace

ConfigCheck llm_provider_check(std::shared_ptr<const ProviderTable> providers) {
  ConfigCheck check;
  check.rule = kLlmProviderRule;
  check.every_node = true;
  check.check = [providers](const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out) {
    check_value(*providers, node.llm_provider(), node.id, node.find("llm_provider"), node.location, out);
    // The graph's value once, with the first node (vertex 0: vertices are kept in insertion order).
    if (graph.node_count() == 0 || graph.node(Vertex{0}).id != node.id) return;
    const GraphData& data = graph.data();
    check_value(*providers, data.get("llm_provider"), "", data.find("llm_provider"), SourceLocation{}, out);
  };
  return check;
}

}  // namespace attractor
