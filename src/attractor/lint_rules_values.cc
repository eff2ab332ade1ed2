#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "attractor/handler_types.h"
#include "attractor/lint_rules.h"
#include "attractor/node_roles.h"
#include "parser/condition.h"
#include "parser/stylesheet.h"

namespace attractor::lint_detail {
namespace {

Diagnostic diagnostic(std::string rule, Severity severity, std::string message, std::string node_id,
                      std::string fix, SourceLocation location) {
  Diagnostic d;
  d.rule = std::move(rule);
  d.severity = severity;
  d.message = std::move(message);
  d.node_id = std::move(node_id);
  d.fix = std::move(fix);
  d.location = location;
  return d;
}

SourceLocation inner_location(const Graph& graph, const Value& value, std::size_t offset) {
  return graph.source() ? locate_in_value(*graph.source(), value, offset) : value.location;
}

std::vector<std::string> node_ids(const Graph& graph) {
  std::vector<std::string> ids;
  for (Vertex v : graph.nodes()) ids.push_back(graph.node(v).id);
  return ids;
}

const std::vector<std::string>& fidelity_modes() {
  static const std::vector<std::string> modes = {"full", "truncate", "compact",
                                                 "summary:low", "summary:medium", "summary:high"};
  return modes;
}

bool has_text(const AttributeBag& bag, std::string_view key) {
  const Value* value = bag.find(key);
  return value != nullptr && !value->text.empty();
}

/// Same answer as `resolve_handler_type(node) == "codergen"`, without building strings.
bool is_codergen(const NodeData& node) {
  const Value* type = node.find("type");
  if (type != nullptr && !type->text.empty()) return type->text == "codergen";
  const Value* shape = node.find("shape");
  std::string_view mapped = handler_type_for_shape(shape != nullptr ? std::string_view(shape->text) : "box");
  return mapped.empty() || mapped == "codergen";
}

std::string suggestion_or(const std::string& guess, std::string otherwise) {
  return guess.empty() ? otherwise : "did you mean '" + guess + "'?";
}

enum class Expect { kNonNegativeInteger, kInteger, kBoolean, kDuration };

struct TypedAttribute {
  std::string_view name;
  Expect expect;
};

constexpr TypedAttribute kNodeTypes[] = {
    {"max_retries", Expect::kNonNegativeInteger}, {"goal_gate", Expect::kBoolean},
    {"auto_status", Expect::kBoolean},            {"allow_partial", Expect::kBoolean},
    {"timeout", Expect::kDuration},               {"max_parallel", Expect::kNonNegativeInteger},
    {"top_k", Expect::kInteger},                  {"rrf_k", Expect::kInteger},
    {"max_chars", Expect::kInteger},              {"budget_tokens", Expect::kInteger},
    {"manager.max_cycles", Expect::kNonNegativeInteger}, {"manager.poll_interval", Expect::kDuration},
};
constexpr TypedAttribute kEdgeTypes[] = {{"weight", Expect::kInteger}, {"loop_restart", Expect::kBoolean}};
constexpr TypedAttribute kGraphTypes[] = {{"default_max_retries", Expect::kNonNegativeInteger},
                                          {"default_max_retry", Expect::kNonNegativeInteger},
                                          {"max_context_tokens", Expect::kInteger}};

/// "" when `text` has the expected type, else the message tail and the fix.
std::pair<std::string, std::string> type_problem(Expect expect, std::string_view name, const std::string& text) {
  switch (expect) {
    case Expect::kNonNegativeInteger: {
      auto v = parse_integer(text);
      if (v && *v >= 0) return {};
      return {std::string(name) + " must be a non-negative integer, got '" + text + "'", "use a whole number such as 2"};
    }
    case Expect::kInteger:
      if (parse_integer(text)) return {};
      return {std::string(name) + " must be an integer, got '" + text + "'", "use a whole number such as 2"};
    case Expect::kBoolean:
      if (parse_boolean(text)) return {};
      return {std::string(name) + " must be true or false, got '" + text + "'", "use true or false"};
    case Expect::kDuration:
      if (parse_duration_ms(text)) return {};
      return {std::string(name) + " must be a duration such as 250ms, 900s, 15m, 2h or 1d, got '" + text + "'",
              "write a whole number followed by ms, s, m, h or d"};
  }
  return {};
}

template <std::size_t N, typename Subject>
void check_types(const AttributeBag& bag, const TypedAttribute (&table)[N], const Subject& subject,
                 const std::string& node_id, const EdgeData* edge, SourceLocation fallback,
                 std::vector<Diagnostic>& out) {
  for (const auto& [name, attribute] : bag.attrs) {
    const TypedAttribute* match = nullptr;
    for (const TypedAttribute& typed : table) {
      if (std::string_view(name) == typed.name) {
        match = &typed;
        break;
      }
    }
    if (match == nullptr) continue;
    const TypedAttribute& typed = *match;
    const Value* value = &attribute;
    auto [problem, fix] = type_problem(typed.expect, typed.name, value->text);
    if (problem.empty()) continue;
    Diagnostic d = diagnostic("attribute_type", Severity::kError, subject() + ": " + problem, node_id, fix,
                              value_location(value, fallback));
    if (edge != nullptr) d.edge = std::make_pair(edge->from, edge->to);
    out.push_back(std::move(d));
  }
}

}  // namespace

LintRulePtr condition_syntax_rule() {
  return make_rule("condition_syntax", [](const Graph& graph, std::vector<Diagnostic>& out) {
    std::unordered_set<std::string_view> valid;  // views into the graph's values; many edges share a condition
    for (Edge e : graph.edges()) {
      const EdgeData& edge = graph.edge(e);
      const Value* value = edge.find("condition");
      if (value == nullptr || valid.count(value->text) > 0) continue;
      ConditionParseResult parsed = parse_condition(value->text);
      if (parsed.ok()) {
        valid.insert(value->text);
        continue;
      }
      const ConditionError& error = *parsed.error;
      SourceLocation location = inner_location(graph, *value, error.offset);
      bool disjunction = error.message.rfind("'||'", 0) == 0;
      Diagnostic d = diagnostic(
          "condition_syntax", Severity::kError,
          "invalid condition on edge " + edge.from + " -> " + edge.to + ": " + error.message, "",
          disjunction ? "add one edge per alternative, each with its own condition"
                      : "write clauses key=value or key!=value joined by '&&', e.g. outcome=success && "
                        "context.ready=true",
          location.known() ? location : edge.location);
      d.edge = std::make_pair(edge.from, edge.to);
      out.push_back(std::move(d));
    }
  });
}

LintRulePtr condition_outcome_value_rule() {
  return make_rule("condition_outcome_value", [](const Graph& graph, std::vector<Diagnostic>& out) {
    static const std::vector<std::string> kStatuses = {"success", "partial_success", "retry", "fail", "skipped"};
    std::unordered_set<std::string_view> clean;
    for (Edge e : graph.edges()) {
      const EdgeData& edge = graph.edge(e);
      const Value* value = edge.find("condition");
      if (value == nullptr || clean.count(value->text) > 0) continue;
      ConditionParseResult parsed = parse_condition(value->text);
      if (!parsed.ok()) continue;
      bool all_known = true;
      for (const ConditionClause& clause : parsed.condition->clauses) {
        if (clause.key != "outcome" || clause.op == ConditionClause::Op::kTruthy) continue;
        if (std::find(kStatuses.begin(), kStatuses.end(), clause.literal) != kStatuses.end()) continue;
        all_known = false;
        SourceLocation location = inner_location(graph, *value, clause.offset);
        std::string lowered = clause.literal;
        for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        Diagnostic d = diagnostic(
            "condition_outcome_value", Severity::kWarning,
            "condition on edge " + edge.from + " -> " + edge.to + " compares outcome with '" + clause.literal +
                "', which is never an outcome; expected success, partial_success, retry, fail or skipped",
            "", suggestion_or(closest_match(lowered, kStatuses, 2), "use one of: " + join(kStatuses)),
            location.known() ? location : edge.location);
        d.edge = std::make_pair(edge.from, edge.to);
        out.push_back(std::move(d));
      }
      if (all_known) clean.insert(value->text);
    }
  });
}

LintRulePtr stylesheet_syntax_rule() {
  return make_rule("stylesheet_syntax", [](const Graph& graph, std::vector<Diagnostic>& out) {
    const Value* value = graph.data().find("model_stylesheet");
    if (value == nullptr) return;
    StylesheetParseResult parsed = parse_stylesheet(value->text);
    if (parsed.ok()) return;
    out.push_back(diagnostic("stylesheet_syntax", Severity::kError, "invalid model_stylesheet: " + parsed.error->message,
                             "", "rules look like: .code { llm_model: claude-opus-4-6; reasoning_effort: high; }",
                             inner_location(graph, *value, parsed.error->offset)));
  });
}

LintRulePtr type_known_rule() {
  return make_rule("type_known", [](const Graph& graph, std::vector<Diagnostic>& out) {
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      const Value* value = node.find("type");
      if (value == nullptr || value->text.empty() || is_known_handler_type(value->text)) continue;
      std::vector<std::string> known = known_handler_types();
      out.push_back(diagnostic("type_known", Severity::kWarning,
                               "node '" + node.id + "' has unknown type '" + value->text + "'", node.id,
                               suggestion_or(closest_match(value->text, known, 2), "known types: " + join(known)),
                               value_location(value, node.location)));
    }
  });
}

LintRulePtr fidelity_valid_rule() {
  return make_rule("fidelity_valid", [](const Graph& graph, std::vector<Diagnostic>& out) {
    const std::string expected = "; expected full, truncate, compact, summary:low, summary:medium or summary:high";
    auto check = [&](const Value* value, const auto& subject, std::string node_id,
                     std::optional<std::pair<std::string, std::string>> edge, SourceLocation fallback) {
      if (value == nullptr || value->text.empty()) return;
      for (const std::string& mode : fidelity_modes()) {
        if (mode == value->text) return;
      }
      Diagnostic d = diagnostic("fidelity_valid", Severity::kWarning, subject() + " '" + value->text + "'" + expected,
                                std::move(node_id),
                                suggestion_or(closest_match(value->text, fidelity_modes(), 2),
                                              "use one of: " + join(fidelity_modes())),
                                value_location(value, fallback));
      d.edge = std::move(edge);
      out.push_back(std::move(d));
    };
    check(graph.data().find("default_fidelity"), [] { return std::string("graph has invalid default_fidelity"); }, "",
          std::nullopt, {});
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      const Value* value = node.find("fidelity");
      if (value == nullptr) continue;
      check(value, [&] { return "node '" + node.id + "' has invalid fidelity"; }, node.id, std::nullopt,
            node.location);
    }
    for (Edge e : graph.edges()) {
      const EdgeData& edge = graph.edge(e);
      const Value* value = edge.find("fidelity");
      if (value == nullptr) continue;
      check(value, [&] { return "edge " + edge.from + " -> " + edge.to + " has invalid fidelity"; }, "",
            std::make_pair(edge.from, edge.to), edge.location);
    }
  });
}

LintRulePtr retry_target_exists_rule() {
  return make_rule("retry_target_exists", [](const Graph& graph, std::vector<Diagnostic>& out) {
    std::vector<std::string> ids;
    auto check = [&](const AttributeBag& bag, const char* attribute, const auto& subject, const std::string& node_id,
                     SourceLocation fallback) {
      const Value* value = bag.find(attribute);
      if (value == nullptr || value->text.empty() || graph.find(value->text)) return;
      if (ids.empty()) ids = node_ids(graph);
      out.push_back(diagnostic("retry_target_exists", Severity::kWarning,
                               subject() + " " + attribute + " '" + value->text + "', which is not a node", node_id,
                               suggestion_or(closest_match(value->text, ids, 2),
                                             std::string("set ") + attribute + " to the id of an existing node"),
                               value_location(value, fallback)));
    };
    for (const char* attribute : {"retry_target", "fallback_retry_target"}) {
      check(graph.data(), attribute, [] { return std::string("graph has"); }, "", {});
    }
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      for (const char* attribute : {"retry_target", "fallback_retry_target"}) {
        check(node, attribute, [&] { return "node '" + node.id + "' has"; }, node.id, node.location);
      }
    }
  });
}

LintRulePtr goal_gate_has_retry_rule() {
  return make_rule("goal_gate_has_retry", [](const Graph& graph, std::vector<Diagnostic>& out) {
    const GraphData& data = graph.data();
    if (!data.retry_target().empty() || !data.fallback_retry_target().empty()) return;
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      if (!node.goal_gate() || !node.retry_target().empty() || !node.fallback_retry_target().empty()) continue;
      out.push_back(diagnostic("goal_gate_has_retry", Severity::kWarning,
                               "goal gate node '" + node.id + "' has no retry_target or fallback_retry_target",
                               node.id, "add retry_target=<node to re-run> to '" + node.id + "'",
                               value_location(node.find("goal_gate"), node.location)));
    }
  });
}

LintRulePtr prompt_on_llm_nodes_rule() {
  return make_rule("prompt_on_llm_nodes", [](const Graph& graph, std::vector<Diagnostic>& out) {
    std::vector<char> role(graph.node_count(), 0);
    for (Vertex v : start_nodes_of(graph)) role[v] = 1;
    for (Vertex v : terminal_nodes_of(graph)) role[v] = 1;
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      if (role[v] || !is_codergen(node) || has_text(node, "prompt") || has_text(node, "label")) continue;
      out.push_back(diagnostic("prompt_on_llm_nodes", Severity::kWarning,
                               "LLM node '" + node.id + "' has no prompt or label", node.id,
                               "add prompt=\"...\" to '" + node.id + "'", node.location));
    }
  });
}

LintRulePtr from_settings_exists_rule() {
  return make_rule("from_settings_exists", [](const Graph& graph, std::vector<Diagnostic>& out) {
    static constexpr std::string_view kSuffix = "_from_settings";
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      for (const auto& [name, value] : node.attrs) {
        if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
          continue;
        }
        if (!value.text.empty() && graph.data().has(value.text)) continue;
        std::string message = value.text.empty()
                                  ? "node '" + node.id + "' has an empty " + name + "; it must name a graph attribute"
                                  : "node '" + node.id + "' has " + name + "='" + value.text +
                                        "', but the graph has no attribute '" + value.text + "'";
        out.push_back(diagnostic("from_settings_exists", Severity::kError, message, node.id,
                                 "add " + (value.text.empty() ? std::string("the setting") : value.text) +
                                     "=... to the graph [...] block",
                                 value_location(&value, node.location)));
      }
    }
  });
}

LintRulePtr attribute_type_rule() {
  return make_rule("attribute_type", [](const Graph& graph, std::vector<Diagnostic>& out) {
    check_types(graph.data(), kGraphTypes, [] { return std::string("graph"); }, "", nullptr, {}, out);
    for (Vertex v : graph.nodes()) {
      const NodeData& node = graph.node(v);
      check_types(node, kNodeTypes, [&] { return "node '" + node.id + "'"; }, node.id, nullptr, node.location,
                  out);
    }
    for (Edge e : graph.edges()) {
      const EdgeData& edge = graph.edge(e);
      if (edge.attrs.empty()) continue;
      check_types(edge, kEdgeTypes, [&] { return "edge " + edge.from + " -> " + edge.to; }, "", &edge,
                  edge.location, out);
    }
  });
}

}  // namespace attractor::lint_detail
