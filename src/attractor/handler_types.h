#pragma once
/// \file
/// The set of node `type` values the engine knows, consulted by the `type_known` lint rule.
/// The handler registry adds custom types here when they are registered.

#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// True for built-in handler types and types added with `register_known_handler_type`.
bool is_known_handler_type(std::string_view type);
/// Makes `type` known (idempotent, thread-safe).
void register_known_handler_type(std::string type);
/// All known types, sorted.
std::vector<std::string> known_handler_types();

}  // namespace attractor
