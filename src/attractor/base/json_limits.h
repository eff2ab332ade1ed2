#pragma once
/// \file
/// Parsing JSON that comes from outside the process (checkpoint.json, a stage's status.json written
/// by an external agent) with bounded nesting: nlohmann::json copies and compares nested values
/// recursively, so a document nested 100,000 levels deep would overflow the stack later.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attractor {

/// Deepest nesting of arrays/objects accepted by `parse_json_limited`.
inline constexpr int kMaxJsonDepth = 256;

/// Parses `text`; throws std::runtime_error("<what> is not valid JSON: <reason>") on a syntax error
/// (reason like "parse error at line 1, column 7: ..." or "number overflow parsing '1e999'") or when
/// nesting exceeds `max_depth` ("nested deeper than 256 levels"). Throws nothing else.
nlohmann::json parse_json_limited(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth);

}  // namespace attractor
