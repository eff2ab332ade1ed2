// The retrieval budget rules: compact_code_rules (manage_context_budget `compact_code` JSON) and
// context_budget_settings (the budget configuration of fetch_node_texts and manage_context_budget),
// so every invalid combination fails at validation time with a file:line:col diagnostic.

#include <fmt/format.h>

#include "attractor/compact_code_rules.h"
#include "attractor/lint_rules.h"
#include "attractor/outcome.h"
#include "handlers/evidence_order.h"
#include "handlers/fetch_node_texts.h"

namespace attractor::lint_detail {
namespace {

Diagnostic error(const char* rule, std::string message, const std::string& node_id, std::string fix,
                 SourceLocation location) {
  Diagnostic d;
  d.rule = rule;
  d.severity = Severity::kError;
  d.message = std::move(message);
  d.node_id = node_id;
  d.fix = std::move(fix);
  d.location = location;
  return d;
}

void check_compact_code(const Graph& graph, std::vector<Diagnostic>& out) {
  for (Vertex v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    const Value* value = node.find("compact_code");
    if (value == nullptr) continue;
    CompactRulesParse parsed = parse_compact_code_rules(value->text);
    if (!parsed.error) continue;
    SourceLocation location = graph.source() ? locate_in_value(*graph.source(), *value, parsed.error->offset)
                                             : value_location(value, node.location);
    if (!location.known()) location = node.location;
    out.push_back(error("compact_code_rules", fmt::format("node '{}': {}", node.id, parsed.error->message), node.id,
                        "compact_code is {\"rules\": [{\"language\": \"sql\"|\"dotnet\", \"policy\": "
                        "\"always\"|\"threshold\"|\"demand\", \"threshold\": (0, 1], \"inbox_key\": \"...\"}]}",
                        location));
  }
}

void check_budget_settings(const Graph& graph, std::vector<Diagnostic>& out) {
  for (Vertex v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    std::string type = node.type();
    if (type == "fetch_node_texts") {
      std::string mode = node.get("prioritization_mode", "balanced");
      if (!parse_prioritization_mode(mode)) {
        out.push_back(error("context_budget_settings",
                            fmt::format("node '{}': prioritization_mode must be one of seed_first | graph_first | "
                                        "balanced, got '{}'",
                                        node.id, mode),
                            node.id, "use seed_first, graph_first or balanced",
                            value_location(node.find("prioritization_mode"), node.location)));
      }
      try {
        resolve_evidence_budget(node, graph);
      } catch (const StageError& e) {
        const Value* at = nullptr;
        for (const char* key : {"max_chars", "budget_tokens", "budget_tokens_from_settings"}) {
          if (at == nullptr) at = node.find(key);
        }
        out.push_back(error("context_budget_settings", e.what(), node.id,
                            "set exactly one of max_chars, budget_tokens, budget_tokens_from_settings, or a graph "
                            "max_context_tokens > 1 for the implicit 70% budget",
                            value_location(at, node.location)));
      }
    } else if (type == "manage_context_budget") {
      std::optional<std::int64_t> max = graph.data().get_integer("max_context_tokens");
      if (!max || *max <= 0) {
        out.push_back(error("context_budget_settings",
                            fmt::format("node '{}' (manage_context_budget) needs graph attribute max_context_tokens "
                                        "(an integer > 0){}",
                                        node.id,
                                        graph.data().has("max_context_tokens")
                                            ? ", got '" + graph.data().get("max_context_tokens") + "'"
                                            : std::string()),
                            node.id, "add max_context_tokens=N to the graph [...] block",
                            value_location(graph.data().find("max_context_tokens"), node.location)));
      }
      for (const char* route : {"on_ok", "on_over"}) {
        if (node.get(route).empty()) {
          out.push_back(error("context_budget_settings",
                              fmt::format("node '{}' (manage_context_budget) needs {}", node.id, route), node.id,
                              fmt::format("add {}=\"<node id>\" and a matching outgoing edge", route), node.location));
        }
      }
    }
  }
}

}  // namespace

LintRulePtr compact_code_rules_rule() { return make_rule("compact_code_rules", check_compact_code); }

LintRulePtr context_budget_settings_rule() { return make_rule("context_budget_settings", check_budget_settings); }

}  // namespace attractor::lint_detail
