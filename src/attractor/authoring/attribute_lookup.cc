#include "attractor/authoring/attribute_lookup.h"

#include <set>

#include "attractor/check/attributes.h"

namespace attractor {

namespace {

const char* scope_name(AttributeScope scope) {
  switch (scope) {
    case AttributeScope::kEdge: return "edge";
    case AttributeScope::kGraph: return "graph";
    case AttributeScope::kNode: return "node";
  }
  return "node";
}

}  // namespace

const std::vector<AttributeSpec>& attribute_table(AttributeScope scope) {
  switch (scope) {
    case AttributeScope::kEdge: return edge_attributes();
    case AttributeScope::kGraph: return graph_attributes();
    case AttributeScope::kNode: return node_attributes();
  }
  return node_attributes();
}

std::vector<FoundAttribute> attributes_for(AttributeScope scope, const std::string& node_type,
                                           const HandlerCatalog& handlers) {
  std::vector<FoundAttribute> out;
  std::set<std::string> seen;
  auto add = [&](const AttributeSpec& spec, const std::string& owner) {
    if (seen.insert(spec.name).second) out.push_back({&spec, owner});
  };
  for (const AttributeSpec& spec : attribute_table(scope)) add(spec, scope_name(scope));
  if (scope != AttributeScope::kNode) return out;
  const HandlerDescription* own = node_type.empty() ? nullptr : handlers.find(node_type);
  for (const HandlerDescription* d : handlers.descriptions()) {
    if (own && d != own) continue;
    for (const AttributeSpec& spec : d->attributes) add(spec, d->type);
  }
  return out;
}

FoundAttribute find_attribute_for(AttributeScope scope, const std::string& node_type, std::string_view name,
                                  const HandlerCatalog& handlers) {
  for (const FoundAttribute& f : attributes_for(scope, node_type, handlers)) {
    if (f.spec->name == name) return f;
  }
  for (AttributeScope other : {AttributeScope::kNode, AttributeScope::kEdge, AttributeScope::kGraph}) {
    for (const FoundAttribute& f : attributes_for(other, "", handlers)) {
      if (f.spec->name == name) return f;
    }
  }
  return {};
}

std::string attribute_detail(const AttributeSpec& spec) {
  std::string out(attribute_type_name(spec.type));
  if (spec.type == AttributeType::kEnum && !spec.values.empty()) {
    out = "one of ";
    for (std::size_t i = 0; i < spec.values.size(); ++i) out += (i ? ", " : "") + spec.values[i];
  }
  if (!spec.default_value.empty()) out += ", default " + spec.default_value;
  return out;
}

}  // namespace attractor
