#include "attractor/check/handler_catalog.h"

#include <algorithm>

#include "attractor/model/outcome.h"

namespace attractor {

std::string_view attribute_type_name(AttributeType type) {
  switch (type) {
    case AttributeType::kString: return "string";
    case AttributeType::kInteger: return "integer";
    case AttributeType::kNonNegativeInteger: return "integer >= 0";
    case AttributeType::kPositiveInteger: return "integer >= 1";
    case AttributeType::kBoolean: return "boolean";
    case AttributeType::kDuration: return "duration";
    case AttributeType::kDurationOrMillis: return "duration or milliseconds";
    case AttributeType::kNumber: return "number";
    case AttributeType::kJson: return "JSON";
    case AttributeType::kNodeId: return "node id";
    case AttributeType::kCondition: return "condition";
    case AttributeType::kEnum: return "one of";
    case AttributeType::kPath: return "path";
  }
  return "string";
}

std::string_view attribute_family(std::string_view name) {
  const std::size_t dot = name.find('.');
  return dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
}

bool uses_llm(const HandlerTraits& traits, const NodeData& node) {
  return traits.llm == HandlerTraits::Llm::kAlways ||
         (traits.llm == HandlerTraits::Llm::kWithPrompt && !node.prompt().empty());
}

void HandlerCatalog::add(HandlerDescription description) {
  for (const std::string& shape : description.shapes) by_shape_.insert_or_assign(shape, description.type);
  std::string type = description.type;
  by_type_.insert_or_assign(std::move(type), std::move(description));
}

const HandlerDescription* HandlerCatalog::find(std::string_view type) const {
  auto it = by_type_.find(type);
  return it == by_type_.end() ? nullptr : &it->second;
}

std::string_view HandlerCatalog::type_for_shape(std::string_view shape) const {
  auto it = by_shape_.find(shape);
  return it == by_shape_.end() ? std::string_view() : std::string_view(it->second);
}

std::vector<std::string> HandlerCatalog::shapes() const {
  std::vector<std::string> out;
  for (const auto& [shape, type] : by_shape_) out.emplace_back(shape);
  std::sort(out.begin(), out.end());
  return out;
}

std::string HandlerCatalog::type_of(const NodeData& node) const {
  std::string type = node.type();
  if (!type.empty()) return type;
  std::string_view mapped = type_for_shape(node.shape());
  return mapped.empty() ? default_type_ : std::string(mapped);
}

const HandlerDescription* HandlerCatalog::describe(const NodeData& node) const { return find(type_of(node)); }

const HandlerTraits& HandlerCatalog::traits(const NodeData& node) const {
  static const HandlerTraits none;
  const HandlerDescription* d = describe(node);
  return d == nullptr ? none : d->traits;
}

std::vector<std::string> HandlerCatalog::types() const {
  std::vector<std::string> out;
  for (const auto& [type, description] : by_type_) out.push_back(type);
  return out;
}

std::vector<const HandlerDescription*> HandlerCatalog::descriptions() const {
  std::vector<const HandlerDescription*> out;
  for (const auto& [type, description] : by_type_) out.push_back(&description);
  return out;
}

std::vector<Diagnostic> HandlerCatalog::check_config(const NodeData& node, const Graph& graph) const {
  std::vector<Diagnostic> out;
  if (const HandlerDescription* d = describe(node)) {
    for (const ConfigCheck& c : d->checks) c.check(node, graph, out);
  }
  return out;
}

void throw_first_config_error(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == Severity::kError) throw StageError(d.message, ErrorCategory::kTerminal);
  }
}

}  // namespace attractor
