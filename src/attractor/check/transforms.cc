#include "attractor/check/transforms.h"

#include <array>
#include <mutex>
#include <string_view>

#include "parser/stylesheet.h"

namespace attractor {
namespace {

/// The variable expand_goal replaces.
constexpr std::string_view kGoalVariable = "$goal";

std::mutex& transform_registry_mutex() {
  static std::mutex m;
  return m;
}

std::vector<TransformPtr>& transform_registry() {
  static std::vector<TransformPtr> transforms;
  return transforms;
}

bool selector_matches(const StyleSelector& selector, const NodeData& node, const std::vector<std::string>& classes) {
  switch (selector.kind) {
    case StyleSelector::Kind::kUniversal: return true;
    case StyleSelector::Kind::kShape: return node.shape() == selector.name;
    case StyleSelector::Kind::kId: return node.id == selector.name;
    case StyleSelector::Kind::kClass:
      for (const std::string& c : classes) {
        if (c == selector.name) return true;
      }
      return false;
  }
  return false;
}

/// Appends `text` to `out` with every `$goal` replaced by `goal`.
void append_goal_expanded(std::string_view text, std::string_view goal, std::string& out) {
  std::size_t from = 0;
  for (std::size_t pos = text.find(kGoalVariable); pos != std::string_view::npos;
       pos = text.find(kGoalVariable, from)) {
    out.append(text, from, pos - from);
    out += goal;
    from = pos + kGoalVariable.size();
  }
  out.append(text, from);
}

}  // namespace

std::string expand_goal(std::string text, const std::string& goal) {
  std::size_t pos = text.find(kGoalVariable);
  if (pos == std::string::npos) return text;
  // Built once at its final length: replacing in place grows the capacity well past the length,
  // and every caller that keeps the result would keep that slack.
  std::size_t count = 0;
  for (std::size_t p = pos; p != std::string::npos; p = text.find(kGoalVariable, p + kGoalVariable.size())) ++count;
  std::string out;
  out.reserve(text.size() - count * kGoalVariable.size() + count * goal.size());
  append_goal_expanded(text, goal, out);
  return out;
}

void GoalExpansionTransform::apply(Graph& graph, std::vector<Diagnostic>& /*diagnostics*/) const {
  const std::string goal = graph.data().goal();
  std::string expanded;  // reused: the entry keeps its own copy
  for (Vertex v : graph.nodes()) {
    AttributeMap& attrs = graph.node(v).attrs;
    auto prompt = attrs.find("prompt");
    if (prompt == attrs.end()) continue;
    // A prompt without the variable keeps its value as parsed (a view of the file, when it is one).
    std::string_view text = prompt->second.text();
    if (text.find(kGoalVariable) == std::string_view::npos) continue;
    expanded.clear();
    append_goal_expanded(text, goal, expanded);
    attrs.replace_text(prompt, expanded);
  }
}

void StylesheetTransform::apply(Graph& graph, std::vector<Diagnostic>& /*diagnostics*/) const {
  static constexpr std::array<std::string_view, 3> kProperties = {"llm_model", "llm_provider", "reasoning_effort"};
  auto source = graph.data().find("model_stylesheet");
  if (!source) return;
  StylesheetParseResult parsed = parse_stylesheet(source->text());
  if (!parsed.ok()) return;
  const Stylesheet& sheet = *parsed.stylesheet;
  for (Vertex v : graph.nodes()) {
    NodeData& node = graph.node(v);
    const std::vector<std::string> classes = node.classes();
    for (std::string_view property : kProperties) {
      if (node.has(property)) continue;
      const StyleDeclaration* best = nullptr;
      int best_specificity = -1;
      for (const StyleRule& rule : sheet.rules) {
        const int specificity = rule.selector.specificity();
        if (specificity < best_specificity || !selector_matches(rule.selector, node, classes)) continue;
        for (const StyleDeclaration& declaration : rule.declarations) {
          if (declaration.property != property) continue;
          best = &declaration;
          best_specificity = specificity;
        }
      }
      if (best != nullptr) node.set(std::string(property), best->value);
    }
  }
}

void register_transform(TransformPtr transform) {
  std::lock_guard lock(transform_registry_mutex());
  transform_registry().push_back(std::move(transform));
}

void unregister_transform(const TransformPtr& transform) {
  std::lock_guard lock(transform_registry_mutex());
  std::erase(transform_registry(), transform);
}

void apply_transforms(Graph& graph, std::vector<Diagnostic>& diagnostics, const std::vector<TransformPtr>& extra) {
  GoalExpansionTransform().apply(graph, diagnostics);
  StylesheetTransform().apply(graph, diagnostics);
  std::vector<TransformPtr> registered;
  {
    std::lock_guard lock(transform_registry_mutex());
    registered = transform_registry();
  }
  for (const TransformPtr& transform : registered) transform->apply(graph, diagnostics);
  for (const TransformPtr& transform : extra) transform->apply(graph, diagnostics);
}

}  // namespace attractor
