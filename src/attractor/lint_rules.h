#pragma once
/// \file
/// Internal to lint: the built-in rule groups and helpers they share. Not part of the public API.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/lint.h"

namespace attractor::lint_detail {

using RuleBody = std::function<void(const Graph&, std::vector<Diagnostic>&)>;

/// A rule made of a name and a function.
LintRulePtr make_rule(std::string name, RuleBody body);

/// start_node, terminal_node, reachability, edge_target_exists, start_no_incoming,
/// exit_no_outgoing, outgoing_route_targets (lint_rules_structure.cc).
LintRulePtr start_node_rule();
LintRulePtr terminal_node_rule();
LintRulePtr reachability_rule();
LintRulePtr edge_target_exists_rule();
LintRulePtr start_no_incoming_rule();
LintRulePtr exit_no_outgoing_rule();
LintRulePtr outgoing_route_targets_rule();

/// condition_syntax, condition_outcome_value, stylesheet_syntax, type_known, fidelity_valid, retry_target_exists,
/// goal_gate_has_retry, prompt_on_llm_nodes, from_settings_exists, attribute_type
/// (lint_rules_values.cc).
LintRulePtr condition_syntax_rule();
LintRulePtr condition_outcome_value_rule();
LintRulePtr stylesheet_syntax_rule();
LintRulePtr type_known_rule();
LintRulePtr fidelity_valid_rule();
LintRulePtr retry_target_exists_rule();
LintRulePtr goal_gate_has_retry_rule();
LintRulePtr prompt_on_llm_nodes_rule();
LintRulePtr from_settings_exists_rule();
LintRulePtr attribute_type_rule();

/// attribute_spelling (lint_spelling.cc).
LintRulePtr attribute_spelling_rule();

/// find_start_nodes / find_terminal_nodes, computed once per `validate` call (several rules need them).
std::vector<Vertex> start_nodes_of(const Graph& graph);
std::vector<Vertex> terminal_nodes_of(const Graph& graph);

/// Optimal string alignment distance (insertions, deletions, substitutions, adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `name` within `max_distance` (ties: first in `candidates`), or "".
std::string closest_match(std::string_view name, const std::vector<std::string>& candidates,
                          std::size_t max_distance);

/// The location of an attribute value when known, else `fallback`.
SourceLocation value_location(const Value* value, SourceLocation fallback);

/// "'a', 'b' and 'c'"-free joining: "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

}  // namespace attractor::lint_detail
