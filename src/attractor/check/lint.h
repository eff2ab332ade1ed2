#pragma once
/// \file
/// Validation (spec §7): built-in lint rules plus registered custom ones.
///
/// Built-in rules, in the order they run (severity in brackets):
///   start_node [error]            exactly one start node: shape=Mdiamond, else id `start`/`Start`
///   terminal_node [error]         exactly one exit node: shape=Msquare, else id `exit`/`end`
///   reachability [error]          every node reachable from the start node (an error: docs/decisions.md)
///   exit_reachable [error]        from every node the start reaches, the exit node can be reached:
///                                 a loop that no edge leaves is named with its members (Boost.Graph
///                                 strong_components; breadth_first_search on the reverse_graph)
///   dead_end [error]              every non-exit node the start reaches has an outgoing edge
///   edge_target_exists [error]    both ends of every edge are nodes found by their id
///   start_no_incoming [error]     no edge enters the start node
///   exit_no_outgoing [error]      no edge leaves the exit node
///   condition_syntax [error]      edge `condition` parses (§10); located at the offending character
///   condition_outcome_value [warning] `outcome=X` / `outcome!=X` with X not an outcome status
///                                 (success, partial_success, retry, fail, skipped)
///   condition_key_spelling [warning] a bare condition key one edit away from `outcome` or
///                                 `preferred_label` that no `--set`/`--context` key provides
///   stylesheet_syntax [error]     graph `model_stylesheet` parses (§8); located likewise
///   type_known [warning]          node `type` is a type of the handler catalog (handler_catalog.h)
///   shape_known [error]           a node without `type` has a shape the catalog maps to a handler
///                                 type ("did you mean"); with `type`, any shape is only a drawing
///   fidelity_valid [warning]      node/edge `fidelity` and graph `default_fidelity` are valid modes
///   thread_id_fidelity [warning]  `thread_id` on a node or edge whose stage never runs with fidelity
///                                 `full` (edges into a node can override its fidelity, see lint_rules.h)
///   sandbox_literal [error]       node/graph `sandbox.read`/`sandbox.write` hold no `$`: sandbox paths
///                                 are taken as written, never expanded from context
///   worktree_parallel [warning]   a fan-out node in a `workspace=worktree` graph: its branches share
///                                 the run's one worktree (docs/workspace.md, "Parallel branches")
///   retry_target_exists [warning] node and graph `retry_target`/`fallback_retry_target` name nodes
///   goal_gate_has_retry [warning] `goal_gate=true` nodes have a retry target (node or graph level)
///   prompt_on_llm_nodes [warning] codergen nodes (other than start/exit) have a prompt or label
///   outgoing_route_targets [error] `on_ok`/`on_over`/`on_allow`/`on_deny`/`next` name a node reached
///                                 by one of the node's outgoing edges
///   from_settings_exists [error]  every `*_from_settings` node attribute names a graph attribute
///   attribute_type [error]        the integers (max_retries, weight, ...), booleans (goal_gate,
///                                 loop_restart, ...) and durations (timeout, ...) of the attribute
///                                 tables (attributes.h) and of the handler descriptions
///   attribute_spelling [warning]  unknown attribute names close to a known one ("did you mean"):
///                                 known_attribute_names (attributes.h) of the catalog
///   compact_code_rules [error]    the configuration checks of the catalog's handler descriptions
///   context_budget_settings [error] that carry these rule ids (manage_context_budget's `compact_code`,
///                                 the budgets of fetch_node_texts and manage_context_budget)
/// then the other configuration checks of the handler descriptions (e.g. tool_command [error]: a
/// tool node has a `tool_command`).
///
/// With LintOptions::strict or graph attribute `strict=true`, every warning becomes an error.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attractor/check/handler_catalog.h"
#include "attractor/model/diagnostic.h"
#include "attractor/model/graph.h"

namespace attractor {

/// What the caller knows beyond the graph.
struct LintOptions {
  /// Warnings become errors (`--strict`); graph attribute `strict=true` does the same.
  bool strict = false;
  /// Context keys set before the run starts (`--set`, `--set-json`, `--context`).
  std::vector<std::string> known_context_keys;
};

namespace lint_detail {
struct AttributeScan;
}

/// What a lint rule inspects: the graph, the handler types it may use and the caller's options,
/// with the facts several rules need, each computed on first use and kept for this input only.
/// Not thread-safe; `validate` makes one per call.
class LintInput {
 public:
  LintInput(const Graph& graph, const HandlerCatalog& handlers, const LintOptions& options);
  ~LintInput();
  LintInput(const LintInput&) = delete;
  LintInput& operator=(const LintInput&) = delete;

  const Graph& graph() const { return graph_; }
  const HandlerCatalog& handlers() const { return handlers_; }
  const LintOptions& options() const { return options_; }
  /// find_start_nodes(graph()) (model/node_roles.h).
  const std::vector<Vertex>& start_nodes() const;
  /// find_terminal_nodes(graph()).
  const std::vector<Vertex>& terminal_nodes() const;
  /// The findings of the attribute-driven built-in rules (lint_rules.h, scan_attributes).
  const lint_detail::AttributeScan& attribute_scan() const;

 private:
  const Graph& graph_;
  const HandlerCatalog& handlers_;
  const LintOptions& options_;
  mutable std::optional<std::vector<Vertex>> starts_;
  mutable std::optional<std::vector<Vertex>> terminals_;
  mutable std::unique_ptr<const lint_detail::AttributeScan> scan_;
};

/// A lint rule: inspects a graph and reports diagnostics.
class LintRule {
 public:
  virtual ~LintRule() = default;
  /// Rule id used in diagnostics (e.g. "start_node").
  virtual std::string name() const = 0;
  /// Appends this rule's findings on `input.graph()` to `out`.
  virtual void apply(const LintInput& input, std::vector<Diagnostic>& out) const = 0;
};

using LintRulePtr = std::shared_ptr<const LintRule>;

/// Registers a rule that every later `validate` call runs after the built-ins.
void register_lint_rule(LintRulePtr rule);
/// Removes `rule` from the registered rules (each registration of it); others stay.
void unregister_lint_rule(const LintRulePtr& rule);

/// Runs built-in rules, registered rules, then `extra_rules`. `handlers` describes the handler
/// types the graph may use (type_known, prompt_on_llm_nodes and the handlers' own configuration
/// checks read it). Diagnostics are sorted by source position (unknown positions last), then rule,
/// for stable output.
std::vector<Diagnostic> validate(const Graph& graph, const HandlerCatalog& handlers,
                                 const std::vector<LintRulePtr>& extra_rules = {});
/// The same with `options`.
std::vector<Diagnostic> validate(const Graph& graph, const HandlerCatalog& handlers, const LintOptions& options,
                                 const std::vector<LintRulePtr>& extra_rules = {});

/// The suffix a warning's message gets when strict mode makes it an error.
inline constexpr char kStrictSuffix[] = " (a warning, an error in strict mode)";

/// Like `validate`, but throws ValidationError when any diagnostic is an ERROR.
std::vector<Diagnostic> validate_or_raise(const Graph& graph, const HandlerCatalog& handlers,
                                          const std::vector<LintRulePtr>& extra_rules = {});

/// Ids of the built-in rules, in the order they run.
std::vector<std::string> builtin_lint_rule_names();

}  // namespace attractor
