#pragma once
/// \file
/// The attribute records a statement may use, looked up by scope and handler type, for
/// completion and hover (attributes.h and the handler catalog are the sources).

#include <string>
#include <string_view>
#include <vector>

#include "attractor/authoring/cursor_context.h"
#include "attractor/check/handler_catalog.h"

namespace attractor {

/// An attribute record and where it comes from ("node", "edge", "graph" or a handler type).
struct FoundAttribute {
  const AttributeSpec* spec = nullptr;
  std::string owner;
};

/// The attribute table of `scope` (attributes.h): node_attributes, edge_attributes or
/// graph_attributes.
const std::vector<AttributeSpec>& attribute_table(AttributeScope scope);

/// The attributes of `scope`: for a node of `node_type`, the node attributes and that handler's;
/// for a node of unknown type (or in `node [...]`), those of every handler.
std::vector<FoundAttribute> attributes_for(AttributeScope scope, const std::string& node_type,
                                           const HandlerCatalog& handlers);

/// The record of `name` in `scope` (falling back to every table), or spec == nullptr.
FoundAttribute find_attribute_for(AttributeScope scope, const std::string& node_type, std::string_view name,
                                  const HandlerCatalog& handlers);

/// "integer >= 0, default `0`" and the like.
std::string attribute_detail(const AttributeSpec& spec);

}  // namespace attractor
