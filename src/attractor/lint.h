#pragma once
/// \file
/// Validation (spec §7): built-in lint rules plus registered custom ones.

#include <memory>
#include <string>
#include <vector>

#include "attractor/diagnostic.h"
#include "attractor/graph.h"

namespace attractor {

/// A lint rule: inspects a graph and reports diagnostics.
class LintRule {
 public:
  virtual ~LintRule() = default;
  /// Rule id used in diagnostics (e.g. "start_node").
  virtual std::string name() const = 0;
  /// Appends this rule's findings to `out`.
  virtual void apply(const Graph& graph, std::vector<Diagnostic>& out) const = 0;
};

using LintRulePtr = std::shared_ptr<const LintRule>;

/// Registers a rule that every later `validate` call runs after the built-ins.
void register_lint_rule(LintRulePtr rule);
/// Removes all registered custom rules (tests use this).
void clear_registered_lint_rules();

/// Runs built-in rules, registered rules, then `extra_rules`. Diagnostics are sorted by source
/// position (unknown positions last), then rule, for stable output.
std::vector<Diagnostic> validate(const Graph& graph, const std::vector<LintRulePtr>& extra_rules = {});

/// Like `validate`, but throws ValidationError when any diagnostic is an ERROR.
std::vector<Diagnostic> validate_or_raise(const Graph& graph, const std::vector<LintRulePtr>& extra_rules = {});

/// Ids of the built-in rules, in the order they run.
std::vector<std::string> builtin_lint_rule_names();

}  // namespace attractor
