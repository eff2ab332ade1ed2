#pragma once
/// \file
/// Registrations of custom lint rules and transforms that last one test: they are removed again
/// when the scope ends, so a test leaves the process-wide registries as it found them (the
/// libraries have no reset hook).

#include <utility>
#include <vector>

#include "attractor/check/lint.h"
#include "attractor/check/transforms.h"

namespace attractor::testing {

/// Registers `rules` in order (register_lint_rule) until destroyed.
class ScopedLintRules {
 public:
  explicit ScopedLintRules(std::vector<LintRulePtr> rules) : rules_(std::move(rules)) {
    for (const LintRulePtr& rule : rules_) register_lint_rule(rule);
  }
  ~ScopedLintRules() {
    for (const LintRulePtr& rule : rules_) unregister_lint_rule(rule);
  }
  ScopedLintRules(const ScopedLintRules&) = delete;
  ScopedLintRules& operator=(const ScopedLintRules&) = delete;

 private:
  std::vector<LintRulePtr> rules_;
};

/// Registers `transforms` in order (register_transform) until destroyed.
class ScopedTransforms {
 public:
  explicit ScopedTransforms(std::vector<TransformPtr> transforms) : transforms_(std::move(transforms)) {
    for (const TransformPtr& transform : transforms_) register_transform(transform);
  }
  ~ScopedTransforms() {
    for (const TransformPtr& transform : transforms_) unregister_transform(transform);
  }
  ScopedTransforms(const ScopedTransforms&) = delete;
  ScopedTransforms& operator=(const ScopedTransforms&) = delete;

 private:
  std::vector<TransformPtr> transforms_;
};

}  // namespace attractor::testing
