#pragma once
/// \file
/// Internal to lint: the built-in rule groups and helpers they share. Not part of the public API.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attractor/base/closest_match.h"
#include "attractor/check/lint.h"

namespace attractor::lint_detail {

using RuleBody = std::function<void(const LintInput&, std::vector<Diagnostic>&)>;

/// A rule made of a name and a function.
LintRulePtr make_rule(std::string name, RuleBody body);

/// start_node, terminal_node, reachability, edge_target_exists, start_no_incoming,
/// exit_no_outgoing (lint_rules_structure.cc).
LintRulePtr start_node_rule();
LintRulePtr terminal_node_rule();
LintRulePtr reachability_rule();
LintRulePtr edge_target_exists_rule();
LintRulePtr start_no_incoming_rule();
LintRulePtr exit_no_outgoing_rule();

/// exit_reachable, dead_end (lint_rules_liveness.cc).
LintRulePtr exit_reachable_rule();
LintRulePtr dead_end_rule();

/// thread_id_fidelity (lint_rules_fidelity.cc): `thread_id` on a node or edge whose stage can
/// never run with fidelity `full` (node: its own fidelity / the graph default is not `full` and
/// no incoming edge sets `fidelity=full`; edge: its fidelity, else the target's, is not `full`).
LintRulePtr thread_id_fidelity_rule();
LintRulePtr sandbox_literal_rule();
/// worktree_parallel (lint_rules_workspace.cc): a parallel node in a `workspace=worktree` graph.
LintRulePtr worktree_parallel_rule();

/// stylesheet_syntax (lint_scan.cc).
LintRulePtr stylesheet_syntax_rule();

/// Runs the configuration checks of the handler descriptions that carry the rule id `name`
/// (compact_code_rules, context_budget_settings) on every node of their type.
LintRulePtr handler_config_rule(std::string name);

/// Runs the handler checks whose rule id is not one of `builtin_names` (a handler's own rules),
/// right after the built-in rules.
LintRulePtr other_handler_checks_rule(std::vector<std::string> builtin_names);

/// Findings of the attribute-driven rules, keyed by rule id, gathered in one walk (lint_scan.cc).
struct AttributeScan {
  std::unordered_map<std::string, std::vector<Diagnostic>> by_rule;
};

/// Walks every graph, node and edge attribute once and runs the attribute-driven checks (read
/// through LintInput::attribute_scan, which computes it once per input).
AttributeScan scan_attributes(const LintInput& input);

/// Ids of the rules the scan produces: condition_syntax, condition_outcome_value,
/// condition_key_spelling, type_known, shape_known,
/// fidelity_valid, retry_target_exists, goal_gate_has_retry, prompt_on_llm_nodes,
/// outgoing_route_targets, from_settings_exists, attribute_type, attribute_spelling.
const std::vector<std::string>& scanned_rule_names();

/// The rule `name` (one of scanned_rule_names()): emits its part of the scan.
LintRulePtr scanned_rule(const std::string& name);

/// Suggests the known attribute an unknown attribute name was probably meant to be (lint_spelling.cc).
/// Names within edit distance 2 (1 below 5 characters) of a known name; results are cached, keyed by
/// views of the names, so the checker must not outlive the graph it is used on.
class SpellingChecker {
 public:
  /// Checks names against `known` (sorted, without duplicates: known_attribute_names in attributes.h).
  explicit SpellingChecker(std::vector<std::string> known) : known_(std::move(known)) {}
  /// The likely intended name, or "" when `name` is known or nothing is close.
  const std::string& suggestion(std::string_view name);
  /// True when `name` is one of the known names.
  bool known(std::string_view name) const { return std::binary_search(known_.begin(), known_.end(), name); }

 private:
  std::vector<std::string> known_;
  std::unordered_map<std::string_view, std::string> cache_;
};

/// edit_distance and closest_match (attractor/base/closest_match.h).
using ::attractor::closest_match;
using ::attractor::edit_distance;
using ::attractor::SpellingIndex;

/// For a node that sets no attribute, which an edge naming a misspelt id creates: "did you mean 'ID'?"
/// with the closest node id that sets attributes (edit distance 2, 1 below 5 characters; ids of 4
/// characters or more, not only differing in digits), else "".
/// The candidates are `declared`, from declared_node_ids.
std::string misspelt_node_fix(const Graph& graph, Vertex v, SpellingIndex& declared);

/// The ids of the nodes that set attributes, the candidates of misspelt_node_fix.
SpellingIndex declared_node_ids(const Graph& graph);

/// "'a', 'b' and 'c'"-free joining: "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

}  // namespace attractor::lint_detail
