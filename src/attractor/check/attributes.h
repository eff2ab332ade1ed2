#pragma once
/// \file
/// The attributes every pipeline may set whatever its handlers: the ones the engine (and the
/// layers below the handlers) reads on every node, every edge and the graph, with type, default and
/// meaning, and the Graphviz presentation attributes kept for rendering. Together with the
/// attributes of the handler descriptions (handler_catalog.h) they are the one list lint types and
/// spell-checks attributes against and that `attractor help attributes` and docs/pipelines.md print.

#include <string>
#include <vector>

#include "attractor/check/handler_catalog.h"

namespace attractor {

/// Attributes read on every node, whatever its handler type (spec Appendix A).
const std::vector<AttributeSpec>& node_attributes();

/// Attributes read on every edge.
const std::vector<AttributeSpec>& edge_attributes();

/// Attributes read on the graph (`graph [...]`), by the engine and by the handlers that take a
/// pipeline-wide setting.
const std::vector<AttributeSpec>& graph_attributes();

/// Graphviz presentation attributes: nothing in a run reads them; rendering passes them on.
const std::vector<std::string>& graphviz_attributes();

/// Every attribute name a pipeline may use with `handlers`: the node, edge and graph attributes,
/// the attributes of every handler description and the Graphviz presentation attributes; sorted,
/// without duplicates.
std::vector<std::string> known_attribute_names(const HandlerCatalog& handlers);

/// The spec of `name` among `specs`, or nullptr.
const AttributeSpec* find_attribute(const std::vector<AttributeSpec>& specs, std::string_view name);

}  // namespace attractor
