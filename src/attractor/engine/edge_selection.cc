#include "attractor/engine/edge_selection.h"

#include <algorithm>
#include <cctype>

#include "attractor/base/ascii.h"
#include "parser/condition.h"

namespace attractor {

namespace {

std::string trim(std::string_view s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

/// Length of an accelerator prefix at the start of `s` (already trimmed) and its key.
std::size_t accelerator_prefix(std::string_view s, std::string* key) {
  if (s.size() >= 3 && s[0] == '[') {
    std::size_t close = s.find(']');
    if (close != std::string_view::npos && close > 1 && close <= 4) {
      *key = std::string(s.substr(1, close - 1));
      std::size_t n = close + 1;
      while (n < s.size() && s[n] == ' ') ++n;
      return n;
    }
  }
  if (s.size() >= 2 && std::isalnum(static_cast<unsigned char>(s[0])) && s[1] == ')') {
    *key = std::string(1, s[0]);
    std::size_t n = 2;
    while (n < s.size() && s[n] == ' ') ++n;
    return n;
  }
  if (s.size() >= 4 && std::isalnum(static_cast<unsigned char>(s[0])) && s.substr(1, 3) == " - ") {
    *key = std::string(1, s[0]);
    return 4;
  }
  return 0;
}

/// Whether `data`'s condition holds: the one parsed at load when it is still the edge's text,
/// else the text parsed now (edges built in code, or changed after the load).
bool edge_condition_holds(const EdgeData& data, std::string_view text, const Outcome& outcome, const Context& context) {
  const EdgeCondition* parsed = data.parsed_condition.get();
  if (!parsed || parsed->text != text) return evaluate_edge_condition(text, outcome, context);
  if (!parsed->condition) return false;
  return evaluate_condition(*parsed->condition,
                            [&](std::string_view key) { return resolve_condition_key(key, outcome, context); });
}

bool better(const Graph& graph, const Edge& a, const Edge& b) {
  const EdgeData& ea = graph.edge(a);
  const EdgeData& eb = graph.edge(b);
  if (ea.weight() != eb.weight()) return ea.weight() > eb.weight();
  if (graph.to_id(a) != graph.to_id(b)) return graph.to_id(a) < graph.to_id(b);
  return ea.order < eb.order;
}

std::optional<Edge> best_by_weight_then_lexical(const Graph& graph, const std::vector<Edge>& edges) {
  if (edges.empty()) return std::nullopt;
  Edge best = edges.front();
  for (const Edge& e : edges) {
    if (better(graph, e, best)) best = e;
  }
  return best;
}

/// The edge's condition text; "" when it has none or only blanks.
std::string_view condition_text(const EdgeData& e) {
  auto value = e.find("condition");
  if (!value) return {};
  std::string_view text = value->text();
  return text.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos ? std::string_view() : text;
}

}  // namespace

std::string resolve_condition_key(std::string_view key, const Outcome& outcome, const Context& context) {
  if (key == "outcome") return status_name(outcome.status);
  if (key == "preferred_label") return outcome.preferred_label;
  if (auto v = context.get(key)) return json_to_context_string(*v);
  constexpr std::string_view prefix = "context.";
  if (key.substr(0, prefix.size()) == prefix) {
    if (auto v = context.get(key.substr(prefix.size()))) return json_to_context_string(*v);
  }
  return "";
}

bool evaluate_edge_condition(std::string_view condition, const Outcome& outcome, const Context& context) {
  std::string text = trim(condition);
  if (text.empty()) return true;
  ConditionParseResult parsed = parse_condition(text);
  if (!parsed.condition) return false;
  return evaluate_condition(*parsed.condition,
                            [&](std::string_view key) { return resolve_condition_key(key, outcome, context); });
}

std::string accelerator_key(std::string_view label) {
  std::string t = trim(label);
  if (t.empty()) return "";
  std::string key;
  if (accelerator_prefix(t, &key) > 0) return key;
  return std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(t[0]))));
}

std::string label_without_accelerator(std::string_view label) {
  std::string t = trim(label);
  std::string key;
  std::size_t n = accelerator_prefix(t, &key);
  return trim(std::string_view(t).substr(n));
}

std::string normalize_label(std::string_view label) { return ascii_lower(label_without_accelerator(label)); }

std::optional<Edge> select_edge(const Graph& graph, Vertex from, const Outcome& outcome, const Context& context,
                                EdgeSelectionMode mode) {
  std::vector<Edge> edges = graph.out_edges(from);
  if (edges.empty()) return std::nullopt;

  std::vector<Edge> matched;
  for (const Edge& e : edges) {
    const EdgeData& data = graph.edge(e);
    std::string_view text = condition_text(data);
    if (!text.empty() && edge_condition_holds(data, text, outcome, context)) matched.push_back(e);
  }
  if (!matched.empty()) return best_by_weight_then_lexical(graph, matched);
  if (mode == EdgeSelectionMode::kConditionsOnly) return std::nullopt;

  std::vector<Edge> unconditional;
  for (const Edge& e : edges) {
    if (condition_text(graph.edge(e)).empty()) unconditional.push_back(e);
  }
  if (!outcome.preferred_label.empty()) {
    std::string wanted = normalize_label(outcome.preferred_label);
    for (const Edge& e : unconditional) {
      if (normalize_label(graph.edge(e).label()) == wanted) return e;
    }
  }
  for (const std::string& id : outcome.suggested_next_ids) {
    for (const Edge& e : unconditional) {
      if (graph.to_id(e) == id) return e;
    }
  }
  return best_by_weight_then_lexical(graph, unconditional);
}

}  // namespace attractor
