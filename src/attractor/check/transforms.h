#pragma once
/// \file
/// Graph transforms (spec §9.1–9.3) run after parsing and before validation. They modify the graph
/// in place. Built-ins run first (`$goal` expansion, then stylesheet application), then registered
/// custom transforms in registration order.

#include <memory>
#include <string>
#include <vector>

#include "attractor/model/diagnostic.h"
#include "attractor/model/graph.h"

namespace attractor {

class Transform {
 public:
  virtual ~Transform() = default;
  virtual std::string name() const = 0;
  /// Modifies `graph`; may report diagnostics (e.g. a custom transform's warnings).
  virtual void apply(Graph& graph, std::vector<Diagnostic>& diagnostics) const = 0;
};

using TransformPtr = std::shared_ptr<const Transform>;

/// `text` with every `$goal` replaced by `goal` (spec §9.1); the inserted goal is not scanned again.
/// The one `$goal` expansion: the transform below, prompt templates and the handlers call it.
std::string expand_goal(std::string text, const std::string& goal);

/// Replaces `$goal` in every node's `prompt` with the graph's `goal`.
class GoalExpansionTransform : public Transform {
 public:
  std::string name() const override { return "goal_expansion"; }
  void apply(Graph& graph, std::vector<Diagnostic>& diagnostics) const override;
};

/// Applies `model_stylesheet` (§8.5): for each node and each of llm_model, llm_provider,
/// reasoning_effort the node does not set explicitly, the matching rule with the highest
/// specificity wins, later rules winning ties. An unparsable stylesheet is left to lint.
class StylesheetTransform : public Transform {
 public:
  std::string name() const override { return "stylesheet"; }
  void apply(Graph& graph, std::vector<Diagnostic>& diagnostics) const override;
};

/// Registers a custom transform, run after the built-ins in registration order.
void register_transform(TransformPtr transform);
/// Removes `transform` from the registered ones (each registration of it); others stay.
void unregister_transform(const TransformPtr& transform);

/// Runs built-ins, registered transforms, then `extra`.
void apply_transforms(Graph& graph, std::vector<Diagnostic>& diagnostics, const std::vector<TransformPtr>& extra = {});

}  // namespace attractor
