#pragma once
/// \file
/// The pipeline authoring reference, generated from the handler descriptions (handler_catalog.h)
/// and the attributes of every node, edge and graph (attributes.h), as Markdown. `attractor help
/// shapes`, `attractor help attributes` and `attractor help reference` print it; docs/pipelines.md
/// is the output of `attractor help reference` (a cli test compares the two).

#include <string>

#include "attractor/check/handler_catalog.h"

namespace attractor {

/// Shapes with the handler type each selects, and every handler type with its summary.
std::string shapes_reference(const HandlerCatalog& handlers);

/// Node, edge and graph attributes, the attributes of every handler type (type, default, meaning)
/// and the condition syntax.
std::string attributes_reference(const HandlerCatalog& handlers);

/// The whole reference: an introduction for a first pipeline, then shapes_reference and
/// attributes_reference. docs/pipelines.md holds it for the built-in catalog.
std::string pipeline_reference(const HandlerCatalog& handlers);

/// The command that regenerates docs/pipelines.md, for messages that say the file is stale.
inline constexpr const char* kReferenceRegenerateCommand =
    "cmake --build build --target attractor && ./build/attractor help reference > docs/pipelines.md";

}  // namespace attractor
