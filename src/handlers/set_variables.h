#pragma once
/// \file
/// `set_variables` (docs/retrieval.md): assigns context keys. Attribute `rules` (required) is a JSON array
/// of rule objects, applied in order (a rule sees the keys set by the rules before it):
/// - `set` (required): the context key to write;
/// - exactly one of `from` (a context key that must be set) or `value` (any JSON, null included);
/// - `transform` (optional): `to_context_blocks` turns the value into a list of strings, the
///   shape of `context_blocks`: a string becomes one block (an empty or blank string none), null
///   becomes [], a list of strings is kept; anything else is an error.
/// Optional `next` names the node to route to. Every malformed rule fails before anything is
/// written, with a message naming the node, the rule index and the field.

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class SetVariablesHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
};

/// The `to_context_blocks` transform; throws std::invalid_argument for values it cannot convert.
nlohmann::json to_context_blocks(const nlohmann::json& value);

/// The description of the `set_variables` handler type (registry, lint, engine and reference read it).
const HandlerDescription& set_variables_description();

}  // namespace attractor
