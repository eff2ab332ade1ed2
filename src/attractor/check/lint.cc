#include "attractor/check/lint.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <tuple>

#include "attractor/check/lint_rules.h"
#include "attractor/model/node_roles.h"

namespace attractor {
namespace lint_detail {
namespace {

class FunctionRule : public LintRule {
 public:
  FunctionRule(std::string name, RuleBody body) : name_(std::move(name)), body_(std::move(body)) {}
  std::string name() const override { return name_; }
  void apply(const LintInput& input, std::vector<Diagnostic>& out) const override { body_(input, out); }

 private:
  std::string name_;
  RuleBody body_;
};

}  // namespace

LintRulePtr make_rule(std::string name, RuleBody body) {
  return std::make_shared<FunctionRule>(std::move(name), std::move(body));
}

namespace {

/// Runs, on every node, the checks of its handler's description that `wanted` accepts.
template <typename Wanted>
void run_handler_checks(const LintInput& input, Wanted wanted, std::vector<Diagnostic>& out) {
  const Graph& graph = input.graph();
  const HandlerCatalog& handlers = input.handlers();
  const std::vector<const HandlerDescription*> all = handlers.descriptions();
  for (Vertex v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    const HandlerDescription* own = handlers.describe(node);
    for (const HandlerDescription* description : all) {
      for (const ConfigCheck& check : description->checks) {
        if ((check.every_node || description == own) && wanted(check.rule)) check.check(node, graph, out);
      }
    }
  }
}

}  // namespace

LintRulePtr handler_config_rule(std::string name) {
  return make_rule(name, [name](const LintInput& input, std::vector<Diagnostic>& out) {
    run_handler_checks(
        input, [&](const std::string& rule) { return rule == name; }, out);
  });
}

LintRulePtr other_handler_checks_rule(std::vector<std::string> builtin_names) {
  return make_rule(
      "handler_config", [names = std::move(builtin_names)](const LintInput& input, std::vector<Diagnostic>& out) {
        run_handler_checks(
            input, [&](const std::string& rule) { return std::find(names.begin(), names.end(), rule) == names.end(); },
            out);
      });
}

namespace {

/// `id` without its digits: `step1` and `step2` are numbered stages, not typos of each other.
std::string without_digits(const std::string& id) {
  std::string out;
  for (char c : id) {
    if (c < '0' || c > '9') out += c;
  }
  return out;
}

}  // namespace

SpellingIndex declared_node_ids(const Graph& graph) {
  std::vector<std::string> ids;
  for (Vertex u : graph.nodes()) {
    if (!graph.node(u).attrs.empty()) ids.push_back(graph.node(u).id);
  }
  return SpellingIndex(ids);
}

std::string misspelt_node_fix(const Graph& graph, Vertex v, SpellingIndex& declared) {
  const NodeData& node = graph.node(v);
  if (!node.attrs.empty() || node.id.size() < 4) return "";
  const std::string bare = without_digits(node.id);
  std::string guess = declared.closest(node.id, node.id.size() < 5 ? 1 : 2,
                                       [&](const std::string& other) { return without_digits(other) != bare; });
  if (guess.empty()) return "";
  return "did you mean '" + guess + "'? An edge naming '" + node.id + "' creates that node: correct the edge";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

}  // namespace lint_detail

namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::vector<LintRulePtr>& registry() {
  static std::vector<LintRulePtr> rules;
  return rules;
}

const std::vector<LintRulePtr>& builtin_rules() {
  using namespace lint_detail;
  static const std::vector<LintRulePtr> rules = {start_node_rule(),
                                                 terminal_node_rule(),
                                                 reachability_rule(),
                                                 exit_reachable_rule(),
                                                 dead_end_rule(),
                                                 edge_target_exists_rule(),
                                                 start_no_incoming_rule(),
                                                 exit_no_outgoing_rule(),
                                                 scanned_rule("condition_syntax"),
                                                 scanned_rule("condition_outcome_value"),
                                                 scanned_rule("condition_key_spelling"),
                                                 stylesheet_syntax_rule(),
                                                 scanned_rule("type_known"),
                                                 scanned_rule("shape_known"),
                                                 scanned_rule("fidelity_valid"),
                                                 thread_id_fidelity_rule(),
                                                 sandbox_literal_rule(),
                                                 worktree_parallel_rule(),
                                                 scanned_rule("retry_target_exists"),
                                                 scanned_rule("goal_gate_has_retry"),
                                                 scanned_rule("prompt_on_llm_nodes"),
                                                 scanned_rule("outgoing_route_targets"),
                                                 scanned_rule("from_settings_exists"),
                                                 scanned_rule("attribute_type"),
                                                 scanned_rule("attribute_spelling"),
                                                 handler_config_rule("compact_code_rules"),
                                                 handler_config_rule("context_budget_settings")};
  return rules;
}

}  // namespace

LintInput::LintInput(const Graph& graph, const HandlerCatalog& handlers, const LintOptions& options)
    : graph_(graph), handlers_(handlers), options_(options) {}

LintInput::~LintInput() = default;

const std::vector<Vertex>& LintInput::start_nodes() const {
  if (!starts_) starts_ = find_start_nodes(graph_);
  return *starts_;
}

const std::vector<Vertex>& LintInput::terminal_nodes() const {
  if (!terminals_) terminals_ = find_terminal_nodes(graph_);
  return *terminals_;
}

const lint_detail::AttributeScan& LintInput::attribute_scan() const {
  if (!scan_) scan_ = std::make_unique<const lint_detail::AttributeScan>(lint_detail::scan_attributes(*this));
  return *scan_;
}

void register_lint_rule(LintRulePtr rule) {
  std::lock_guard lock(registry_mutex());
  registry().push_back(std::move(rule));
}

void unregister_lint_rule(const LintRulePtr& rule) {
  std::lock_guard lock(registry_mutex());
  std::erase(registry(), rule);
}

std::vector<Diagnostic> validate(const Graph& graph, const HandlerCatalog& handlers,
                                 const std::vector<LintRulePtr>& extra_rules) {
  return validate(graph, handlers, LintOptions{}, extra_rules);
}

namespace {

/// Strict mode: every warning becomes an error, saying so.
void make_warnings_errors(std::vector<Diagnostic>& diagnostics) {
  for (Diagnostic& d : diagnostics) {
    if (d.severity != Severity::kWarning) continue;
    d.severity = Severity::kError;
    d.message += kStrictSuffix;
  }
}

}  // namespace

std::vector<Diagnostic> validate(const Graph& graph, const HandlerCatalog& handlers, const LintOptions& options,
                                 const std::vector<LintRulePtr>& extra_rules) {
  std::vector<LintRulePtr> rules = builtin_rules();
  static const LintRulePtr other_checks = lint_detail::other_handler_checks_rule(builtin_lint_rule_names());
  rules.push_back(other_checks);
  {
    std::lock_guard lock(registry_mutex());
    rules.insert(rules.end(), registry().begin(), registry().end());
  }
  rules.insert(rules.end(), extra_rules.begin(), extra_rules.end());
  std::vector<Diagnostic> out;
  {
    const LintInput input(graph, handlers, options);
    for (const LintRulePtr& rule : rules) rule->apply(input, out);
  }
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    auto key = [](const Diagnostic& d) {
      return std::make_tuple(!d.location.known(), d.location.line, d.location.column, std::string_view(d.rule));
    };
    return key(a) < key(b);
  });
  if (options.strict || graph.data().get("strict") == "true") make_warnings_errors(out);
  return out;
}

std::vector<Diagnostic> validate_or_raise(const Graph& graph, const HandlerCatalog& handlers,
                                          const std::vector<LintRulePtr>& extra_rules) {
  std::vector<Diagnostic> diagnostics = validate(graph, handlers, extra_rules);
  if (has_errors(diagnostics)) throw ValidationError(diagnostics);
  return diagnostics;
}

std::vector<std::string> builtin_lint_rule_names() {
  std::vector<std::string> names;
  for (const LintRulePtr& rule : builtin_rules()) names.push_back(rule->name());
  return names;
}

}  // namespace attractor
