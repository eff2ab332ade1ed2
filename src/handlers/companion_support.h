#pragma once
/// \file
/// Small helpers shared by the companion actions (`send_message`, `render_context_blocks`,
/// `loop_guard`, `set_variables`): fail-fast errors that name the node and the field, route
/// attributes (`next`, `on_allow`, ...) and JSON-valued attributes.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "attractor/model/graph.h"
#include "attractor/model/outcome.h"

namespace attractor {

/// Throws a terminal StageError "<type> node '<id>': <field>: <problem>".
[[noreturn]] void throw_step_error(const NodeData& node, const std::string& type, const std::string& field,
                                   const std::string& problem);

/// The node named by route attribute `field`; "" when absent and `required` is false. Throws
/// (step error) when required and missing, or when it names no node of `graph`.
std::string route_attribute(const NodeData& node, const Graph& graph, const std::string& type, const std::string& field,
                            bool required);

/// Success outcome that routes to `target` through `suggested_next_ids` (none when "").
Outcome routed_success(const std::string& notes, const std::string& target);

/// Attribute `field` parsed as JSON; nullopt when absent or blank; throws (step error) when not valid JSON.
std::optional<nlohmann::json> json_attribute(const NodeData& node, const std::string& type, const std::string& field);

}  // namespace attractor
