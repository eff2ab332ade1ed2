#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "attractor/check/attributes.h"
#include "attractor/check/lint_rules.h"
#include "parser/condition.h"
#include "parser/stylesheet.h"

/// \file
/// The attribute-driven rules (condition_syntax, condition_outcome_value, type_known,
/// fidelity_valid, retry_target_exists, goal_gate_has_retry, prompt_on_llm_nodes,
/// outgoing_route_targets, from_settings_exists, attribute_type, attribute_spelling) gathered in one
/// walk over the graph's attributes: on large graphs the walks, not the checks, are the cost.
/// Each rule emits its findings graph first, then nodes in insertion order (attributes in name
/// order), then edges in declaration order.

namespace attractor::lint_detail {
namespace {

SourceLocation inner_location(const Graph& graph, ValueView value, std::size_t offset) {
  return graph.source() ? locate_in_value(*graph.source(), value.location(), offset) : value.location();
}

std::string suggestion_or(const std::string& guess, std::string otherwise) {
  return guess.empty() ? otherwise : "did you mean '" + guess + "'?";
}

const std::vector<std::string>& outcome_statuses() {
  static const std::vector<std::string> statuses = {"success", "partial_success", "retry", "fail", "skipped"};
  return statuses;
}

/// What an attribute name means to the scan beyond its type.
enum class Role {
  kOther,
  kType,
  kShape,
  kPrompt,
  kLabel,
  kFidelity,
  kDefaultFidelity,
  kRetryTarget,
  kGoalGate,
  kRoute,
  kCondition
};

using RoleTable = std::unordered_map<std::string_view, Role>;

const RoleTable& node_roles() {
  static const RoleTable table = {
      {"type", Role::kType},
      {"shape", Role::kShape},
      {"prompt", Role::kPrompt},
      {"label", Role::kLabel},
      {"fidelity", Role::kFidelity},
      {"retry_target", Role::kRetryTarget},
      {"fallback_retry_target", Role::kRetryTarget},
      {"goal_gate", Role::kGoalGate},
      {"on_ok", Role::kRoute},
      {"on_over", Role::kRoute},
      {"on_allow", Role::kRoute},
      {"on_deny", Role::kRoute},
      {"next", Role::kRoute},
  };
  return table;
}

const RoleTable& edge_roles() {
  static const RoleTable table = {{"condition", Role::kCondition}, {"fidelity", Role::kFidelity}};
  return table;
}

const RoleTable& graph_roles() {
  static const RoleTable table = {{"default_fidelity", Role::kDefaultFidelity},
                                  {"retry_target", Role::kRetryTarget},
                                  {"fallback_retry_target", Role::kRetryTarget}};
  return table;
}

/// A known attribute: its role and its record (attributes.h, the handler descriptions).
struct AttributeInfo {
  Role role = Role::kOther;
  const AttributeSpec* spec = nullptr;
};

using InfoTable = std::unordered_map<std::string_view, AttributeInfo>;

/// The attributes of `lists` (the first list that names an attribute gives its type) with `roles`.
InfoTable info_table(const RoleTable& roles, const std::vector<const std::vector<AttributeSpec>*>& lists) {
  InfoTable table;
  for (const std::vector<AttributeSpec>* specs : lists) {
    for (const AttributeSpec& spec : *specs) table.try_emplace(spec.name, AttributeInfo{Role::kOther, &spec});
  }
  for (const auto& [name, role] : roles) table[name].role = role;
  return table;
}

/// Node attributes: the ones of every node, then those of every handler description.
InfoTable node_table(const HandlerCatalog& handlers) {
  std::vector<const std::vector<AttributeSpec>*> lists = {&node_attributes()};
  for (const HandlerDescription* d : handlers.descriptions()) lists.push_back(&d->attributes);
  return info_table(node_roles(), lists);
}

/// Edge and graph attributes do not depend on the handlers: one table each per process.
const InfoTable& edge_table() {
  static const InfoTable table = info_table(edge_roles(), {&edge_attributes()});
  return table;
}

const InfoTable& graph_table() {
  static const InfoTable table = info_table(graph_roles(), {&graph_attributes()});
  return table;
}

/// `values` as a sentence: "a, b or c" (`word` "or"), "a, b and c".
std::string or_list(const std::vector<std::string>& values, std::string_view word = "or") {
  if (values.size() < 2) return join(values);
  return join(std::vector<std::string>(values.begin(), values.end() - 1)) + " " + std::string(word) + " " +
         values.back();
}

/// The problem with a value of an enumeration: not one of `spec.values`; the fix is the closest value.
std::pair<std::string, std::string> enum_problem(const AttributeSpec& spec, const std::string& text) {
  const std::vector<std::string>& values = spec.values;
  if (std::find(values.begin(), values.end(), text) != values.end()) return {};
  return {spec.name + " must be " + or_list(values) + ", got '" + text + "'",
          suggestion_or(closest_match(text, values, text.size() < 5 ? 1 : 2), "use one of: " + join(values))};
}

/// "" when `text` has the type of `spec`, else the message tail and the fix.
std::pair<std::string, std::string> type_problem(const AttributeSpec& spec, std::string_view value) {
  const std::string text(value);
  const std::string& name = spec.name;
  switch (spec.type) {
    case AttributeType::kNonNegativeInteger: {
      auto v = parse_integer(text);
      if (v && *v >= 0) return {};
      return {name + " must be a non-negative integer, got '" + text + "'", "use a whole number such as 2"};
    }
    case AttributeType::kPositiveInteger: {
      auto v = parse_integer(text);
      if (v && *v >= 1) return {};
      return {name + " must be an integer of at least 1, got '" + text + "'", "use a whole number such as 2"};
    }
    case AttributeType::kInteger:
      if (parse_integer(text)) return {};
      return {name + " must be an integer, got '" + text + "'", "use a whole number such as 2"};
    case AttributeType::kBoolean:
      if (parse_boolean(text)) return {};
      return {name + " must be true or false, got '" + text + "'", "use true or false"};
    case AttributeType::kDuration:
      if (parse_duration_ms(text)) return {};
      return {name + " must be a duration such as 250ms, 900s, 15m, 2h or 1d, got '" + text + "'",
              "write a whole number followed by ms, s, m, h or d"};
    case AttributeType::kDurationOrMillis:
      if (parse_duration_ms(text) || parse_integer(text)) return {};
      return {name + " must be a duration such as 250ms or 2s, or a number of milliseconds, got '" + text + "'",
              "write a whole number, optionally followed by ms, s, m, h or d"};
    case AttributeType::kEnum: return enum_problem(spec, text);
    case AttributeType::kPath:
      if (std::none_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
        return {};
      }
      return {name + " must be a path without control characters (a line break, a tab)", "write the path on one line"};
    default: return {};
  }
}

bool ends_with_from_settings(std::string_view name) {
  static constexpr std::string_view kSuffix = "_from_settings";
  return name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix;
}

/// One entity being scanned: how to name it in messages and where to point when a value has no
/// position of its own.
struct Subject {
  const NodeData* node = nullptr;
  const EdgeData* edge = nullptr;
  SourceLocation fallback;
  const std::string* from = nullptr;  ///< the ids of an edge's ends
  const std::string* to = nullptr;

  std::string node_id() const { return node ? node->id : std::string(); }
  std::string edge_text() const { return *from + " -> " + *to; }
  void tag(Diagnostic& d) const {
    if (edge != nullptr) d.edge = std::make_pair(*from, *to);
  }
};

class Scanner {
 public:
  explicit Scanner(const LintInput& input) : input_(input) {}

  AttributeScan run() {
    std::vector<char> role(graph_.node_count(), 0);
    for (Vertex v : input_.start_nodes()) role[v] = 1;
    for (Vertex v : input_.terminal_nodes()) role[v] = 1;
    const GraphData& data = graph_.data();
    graph_has_retry_ = !data.retry_target().empty() || !data.fallback_retry_target().empty();
    scan_graph();
    for (Vertex v : graph_.nodes()) scan_node(v, role[v] != 0);
    for (Edge e : graph_.edges()) scan_edge(e);
    return std::move(scan_);
  }

 private:
  void emit(Diagnostic d) { scan_.by_rule[d.rule].push_back(std::move(d)); }

  /// Every node id, for "did you mean" on references to nodes.
  SpellingIndex& node_ids() {
    if (!node_ids_) {
      std::vector<std::string> ids;
      for (Vertex v : graph_.nodes()) ids.push_back(graph_.node(v).id);
      node_ids_.emplace(ids);
    }
    return *node_ids_;
  }

  void check_spelling(std::string_view key, ValueView value, const Subject& subject) {
    // The list of known names is gathered only when some name is missing from the tables.
    if (!spelling_) {
      std::vector<std::string> known = known_attribute_names(handlers_);
      for (const std::string& name : known) {
        if (!attribute_family(name).empty()) families_[std::string(attribute_family(name))].push_back(name);
      }
      spelling_.emplace(std::move(known));
    }
    const std::string& guess = spelling_->suggestion(key);
    auto family = spelling_->known(key) ? families_.end() : families_.find(attribute_family(key));
    if (guess.empty() && family == families_.end()) return;
    const std::string name(key);
    SourceLocation at = value.location();
    if (at.known() && !spelling_reported_.emplace(name, at.offset).second) return;
    std::string message = "unknown attribute '" + name + "'";
    std::string fix = "rename '" + name + "' to '" + guess + "'";
    if (guess.empty()) {
      message += ": nothing reads it, and the " + family->first + ".* attributes are " + or_list(family->second, "and");
      fix = "use one of them (`attractor help attributes` lists them), or a name without the '" + family->first +
            ".' prefix for an attribute of your own";
    } else {
      message += "; did you mean '" + guess + "'?";
    }
    Diagnostic d = make_diagnostic("attribute_spelling", Severity::kWarning, std::move(message), subject.node_id(),
                                   std::move(fix), value_location(value, subject.fallback));
    subject.tag(d);
    emit(std::move(d));
  }

  /// attribute_type: the value of `name` against its record; fidelity_valid checks the fidelities.
  void check_type(const AttributeInfo& info, ValueView value, const Subject& subject, const char* what) {
    if (info.role == Role::kFidelity || info.role == Role::kDefaultFidelity) return;
    if (info.spec == nullptr) return;  // a role without a record: its handler is not in the catalog
    auto [problem, fix] = type_problem(*info.spec, value.text());
    if (problem.empty()) return;
    std::string prefix = subject.edge   ? "edge " + subject.edge_text()
                         : subject.node ? "node '" + subject.node->id + "'"
                                        : std::string(what);
    Diagnostic d = make_diagnostic("attribute_type", Severity::kError, prefix + ": " + problem, subject.node_id(), fix,
                                   value_location(value, subject.fallback));
    subject.tag(d);
    emit(std::move(d));
  }

  void check_fidelity(const AttributeInfo& info, ValueView value, const Subject& subject, const std::string& what) {
    const std::string_view text = value.text();
    if (text.empty()) return;
    const std::vector<std::string>& modes = info.spec->values;
    if (std::find(modes.begin(), modes.end(), text) != modes.end()) return;
    Diagnostic d = make_diagnostic("fidelity_valid", Severity::kWarning,
                                   what + " '" + std::string(text) + "'; expected " + or_list(modes), subject.node_id(),
                                   suggestion_or(closest_match(text, modes, 2), "use one of: " + join(modes)),
                                   value_location(value, subject.fallback));
    subject.tag(d);
    emit(std::move(d));
  }

  void check_retry_target(std::string_view key, ValueView value, const Subject& subject, const std::string& who) {
    const std::string_view text = value.text();
    if (text.empty() || graph_.find(text)) return;
    const std::string name(key);
    emit(make_diagnostic("retry_target_exists", Severity::kWarning,
                         who + " " + name + " '" + std::string(text) + "', which is not a node", subject.node_id(),
                         suggestion_or(node_ids().closest(text, 2), "set " + name + " to the id of an existing node"),
                         value_location(value, subject.fallback)));
  }

  void check_from_settings(std::string_view key, ValueView value, const Subject& subject) {
    const std::string text(value.text());
    if (!text.empty() && graph_.data().has(text)) return;
    const std::string& id = subject.node->id;
    const std::string name(key);
    std::string message = text.empty() ? "node '" + id + "' has an empty " + name + "; it must name a graph attribute"
                                       : "node '" + id + "' has " + name + "='" + text +
                                             "', but the graph has no attribute '" + text + "'";
    emit(make_diagnostic("from_settings_exists", Severity::kError, std::move(message), id,
                         "add " + (text.empty() ? std::string("the setting") : text) + "=... to the graph [...] block",
                         value_location(value, subject.fallback)));
  }

  void check_route(Vertex v, std::string_view name, ValueView value, const Subject& subject) {
    if (value.text().empty()) return;
    const std::string& id = subject.node->id;
    const std::string target(value.text());
    std::string prefix = "node '" + id + "' has " + std::string(name) + "='" + target + "', but ";
    SourceLocation location = value_location(value, subject.fallback);
    if (!graph_.find(target)) {
      std::string guess = node_ids().closest(target, 2);
      emit(make_diagnostic("outgoing_route_targets", Severity::kError, prefix + "there is no node '" + target + "'", id,
                           guess.empty() ? "declare node '" + target + "' and an edge " + id + " -> " + target
                                         : "did you mean '" + guess + "'?",
                           location));
      return;
    }
    const BoostGraph& g = graph_.boost();
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      if (g[boost::target(*it, g)].id == target) return;
    }
    emit(make_diagnostic("outgoing_route_targets", Severity::kError, prefix + "no edge " + id + " -> " + target, id,
                         "add the edge " + id + " -> " + target, location));
  }

  void check_condition(ValueView value, const Subject& subject) {
    if (clean_conditions_.count(value.text()) > 0) return;
    const EdgeData& edge = *subject.edge;
    ConditionParseResult parsed = parse_condition(value.text());
    if (!parsed.ok()) {
      const ConditionError& error = *parsed.error;
      SourceLocation location = inner_location(graph_, value, error.offset);
      bool disjunction = error.message.rfind("'||'", 0) == 0;
      Diagnostic d = make_diagnostic(
          "condition_syntax", Severity::kError,
          "invalid condition on edge " + subject.edge_text() + ": " + error.message, "",
          disjunction ? "add one edge per alternative, each with its own condition"
                      : "write clauses key=value or key!=value joined by '&&', e.g. outcome=success && "
                        "context.ready=true",
          location.known() ? location : edge.location);
      subject.tag(d);
      emit(std::move(d));
      return;
    }
    bool clean = true;
    const auto& statuses = outcome_statuses();
    for (const ConditionClause& clause : parsed.condition->clauses) {
      if (!check_condition_key(clause, value, subject)) clean = false;
      if (clause.key != "outcome" || clause.op == ConditionClause::Op::kTruthy) continue;
      if (std::find(statuses.begin(), statuses.end(), clause.literal) != statuses.end()) continue;
      clean = false;
      SourceLocation location = inner_location(graph_, value, clause.offset);
      std::string lowered = clause.literal;
      for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      Diagnostic d = make_diagnostic(
          "condition_outcome_value", Severity::kWarning,
          "condition on edge " + subject.edge_text() + " compares outcome with '" + clause.literal +
              "', which is never an outcome; expected success, partial_success, retry, fail or skipped",
          "", suggestion_or(closest_match(lowered, statuses, 2), "use one of: " + join(statuses)),
          location.known() ? location : edge.location);
      subject.tag(d);
      emit(std::move(d));
    }
    if (clean) clean_conditions_.insert(value.text());
  }

  /// condition_key_spelling: a bare key one edit away from `outcome`/`preferred_label` that no key
  /// set before the run explains is almost certainly a typo. False when it warned.
  bool check_condition_key(const ConditionClause& clause, ValueView value, const Subject& subject) {
    static const std::vector<std::string> keys = {"outcome", "preferred_label"};
    const std::string& key = clause.key;
    if (key.rfind("context.", 0) == 0 || std::find(keys.begin(), keys.end(), key) != keys.end()) return true;
    std::string guess = closest_match(key, keys, 1);
    if (guess.empty()) return true;
    const std::vector<std::string>& known = input_.options().known_context_keys;
    if (std::find(known.begin(), known.end(), key) != known.end()) return true;
    SourceLocation location = inner_location(graph_, value, clause.offset);
    Diagnostic d = make_diagnostic("condition_key_spelling", Severity::kWarning,
                                   "condition on edge " + subject.edge_text() + " reads context key '" + key +
                                       "', which nothing sets before the run",
                                   "", "did you mean '" + guess + "'?",
                                   location.known() ? location : subject.edge->location);
    subject.tag(d);
    emit(std::move(d));
    return false;
  }

  /// shape_known: without `type`, the shape picks the handler; one the catalog does not map would
  /// silently run the default (LLM) handler.
  void check_shape(const NodeData& node, std::optional<ValueView> type, std::optional<ValueView> shape) {
    if (!shape || (type && !type->text().empty())) return;
    if (!catalog_has_shapes_ || !handlers_.type_for_shape(shape->text()).empty()) return;
    std::vector<std::string> shapes = handlers_.shapes();
    std::string guess = closest_match(shape->text(), shapes, 2);
    emit(make_diagnostic(
        "shape_known", Severity::kError,
        "node '" + node.id + "' has shape '" + std::string(shape->text()) + "', which selects no handler type", node.id,
        guess.empty() ? "use a shape that `attractor help shapes` lists, or set type=NAME (the "
                        "shape is then only a drawing)"
                      : "did you mean '" + guess + "'?",
        value_location(shape, node.location)));
  }

  void scan_graph() {
    Subject subject;
    for (const auto& [name, value] : graph_.data().attrs) {
      auto it = graph_table_.find(name);
      if (it == graph_table_.end()) {
        check_spelling(name, value, subject);
        continue;
      }
      const AttributeInfo& info = it->second;
      if (info.role == Role::kDefaultFidelity)
        check_fidelity(info, value, subject, "graph has invalid default_fidelity");
      if (info.role == Role::kRetryTarget) check_retry_target(name, value, subject, "graph has");
      check_type(info, value, subject, "graph");
    }
  }

  void scan_node(Vertex v, bool start_or_exit) {
    const NodeData& node = graph_.node(v);
    Subject subject{&node, nullptr, node.location};
    std::optional<ValueView> type, shape, goal_gate;
    bool has_prompt = false, has_label = false, has_retry = false;
    for (const auto& [name, value] : node.attrs) {
      if (ends_with_from_settings(name)) check_from_settings(name, value, subject);
      auto it = node_table_.find(name);
      if (it == node_table_.end()) {
        check_spelling(name, value, subject);
        continue;
      }
      const AttributeInfo& info = it->second;
      switch (info.role) {
        case Role::kType: type = value; break;
        case Role::kShape: shape = value; break;
        case Role::kPrompt: has_prompt = !value.text().empty(); break;
        case Role::kLabel: has_label = !value.text().empty(); break;
        case Role::kFidelity:
          check_fidelity(info, value, subject, "node '" + node.id + "' has invalid fidelity");
          break;
        case Role::kRetryTarget:
          has_retry = has_retry || !value.text().empty();
          check_retry_target(name, value, subject, "node '" + node.id + "' has");
          break;
        case Role::kGoalGate: goal_gate = value; break;
        case Role::kRoute: check_route(v, name, value, subject); break;
        default: break;
      }
      check_type(info, value, subject, "node");
    }
    if (type && !type->text().empty() && handlers_.find(type->text()) == nullptr) {
      std::vector<std::string> known = handlers_.types();
      emit(make_diagnostic("type_known", Severity::kWarning,
                           "node '" + node.id + "' has unknown type '" + std::string(type->text()) + "'", node.id,
                           suggestion_or(closest_match(type->text(), known, 2), "known types: " + join(known)),
                           value_location(type, node.location)));
    }
    check_shape(node, type, shape);
    if (goal_gate && goal_gate->text() == "true" && !has_retry && !graph_has_retry_) {
      emit(make_diagnostic("goal_gate_has_retry", Severity::kWarning,
                           "goal gate node '" + node.id + "' has no retry_target or fallback_retry_target", node.id,
                           "add retry_target=<node to re-run> to '" + node.id + "'",
                           value_location(goal_gate, node.location)));
    }
    if (!start_or_exit && !has_prompt && !has_label && is_llm_stage(type, shape)) {
      if (!declared_ids_) declared_ids_ = declared_node_ids(graph_);
      std::string fix = misspelt_node_fix(graph_, v, *declared_ids_);
      emit(make_diagnostic("prompt_on_llm_nodes", Severity::kWarning,
                           "LLM node '" + node.id + "' has no prompt or label", node.id,
                           fix.empty() ? "add prompt=\"...\" to '" + node.id + "'" : fix, node.location));
    }
  }

  /// True when the node's handler always prompts an LLM (its type, else its shape's, else the default).
  /// An unknown shape is shape_known's finding, not an LLM stage.
  bool is_llm_stage(std::optional<ValueView> type, std::optional<ValueView> shape) const {
    std::string_view name = type ? type->text() : std::string_view();
    if (name.empty()) name = handlers_.type_for_shape(shape ? shape->text() : "box");
    if (name.empty() && catalog_has_shapes_) return false;
    if (name.empty()) name = handlers_.default_type();
    const HandlerDescription* d = handlers_.find(name);
    return d != nullptr && d->traits.llm == HandlerTraits::Llm::kAlways;
  }

  void scan_edge(Edge e) {
    const EdgeData& edge = graph_.edge(e);
    if (edge.attrs.empty()) return;
    Subject subject{nullptr, &edge, edge.location, &graph_.from_id(e), &graph_.to_id(e)};
    for (const auto& [name, value] : edge.attrs) {
      auto it = edge_table_.find(name);
      if (it == edge_table_.end()) {
        check_spelling(name, value, subject);
        continue;
      }
      const AttributeInfo& info = it->second;
      if (info.role == Role::kCondition) check_condition(value, subject);
      if (info.role == Role::kFidelity)
        check_fidelity(info, value, subject, "edge " + subject.edge_text() + " has invalid fidelity");
      check_type(info, value, subject, "edge");
    }
  }

  const LintInput& input_;
  const Graph& graph_ = input_.graph();
  const HandlerCatalog& handlers_ = input_.handlers();
  const bool catalog_has_shapes_ = !handlers_.shapes().empty();
  AttributeScan scan_;
  const InfoTable node_table_ = node_table(handlers_);
  const InfoTable& edge_table_ = edge_table();
  const InfoTable& graph_table_ = graph_table();
  std::optional<SpellingChecker> spelling_;
  std::map<std::string, std::vector<std::string>, std::less<>> families_;  ///< family -> its names, sorted
  std::set<std::pair<std::string, std::size_t>> spelling_reported_;
  std::unordered_set<std::string_view> clean_conditions_;  // views into the graph's values
  std::optional<SpellingIndex> node_ids_;
  std::optional<SpellingIndex> declared_ids_;
  bool graph_has_retry_ = false;
};

}  // namespace

AttributeScan scan_attributes(const LintInput& input) { return Scanner(input).run(); }

const std::vector<std::string>& scanned_rule_names() {
  static const std::vector<std::string> names = {
      "condition_syntax",    "condition_outcome_value", "condition_key_spelling", "type_known",
      "shape_known",         "fidelity_valid",          "retry_target_exists",    "goal_gate_has_retry",
      "prompt_on_llm_nodes", "outgoing_route_targets",  "from_settings_exists",   "attribute_type",
      "attribute_spelling"};
  return names;
}

LintRulePtr scanned_rule(const std::string& name) {
  return make_rule(name, [name](const LintInput& in, std::vector<Diagnostic>& out) {
    const AttributeScan& scan = in.attribute_scan();
    auto it = scan.by_rule.find(name);
    if (it != scan.by_rule.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  });
}

LintRulePtr stylesheet_syntax_rule() {
  return make_rule("stylesheet_syntax", [](const LintInput& in, std::vector<Diagnostic>& out) {
    const Graph& graph = in.graph();
    auto value = graph.data().find("model_stylesheet");
    if (!value) return;
    StylesheetParseResult parsed = parse_stylesheet(value->text());
    if (parsed.ok()) return;
    out.push_back(make_diagnostic("stylesheet_syntax", Severity::kError,
                                  "invalid model_stylesheet: " + parsed.error->message, "",
                                  "rules look like: .code { llm_model: claude-opus-4-6; reasoning_effort: high; }",
                                  inner_location(graph, *value, parsed.error->offset)));
  });
}

}  // namespace attractor::lint_detail
