#pragma once
/// \file
/// Compact JSON text written straight into a string, byte-identical to nlohmann's
/// `dump(-1, ' ', false, on_invalid)` (keys sorted; invalid UTF-8 replaced, or thrown on with
/// `error_handler_t::strict`, or dropped with `ignore`) but
/// without a serializer per value: the hot paths (events, checkpoint members) append many small
/// values per stage.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attractor {

using JsonInvalidUtf8 = nlohmann::json::error_handler_t;

/// Appends `text` as a JSON string literal.
void append_json_string(std::string& out, std::string_view text, JsonInvalidUtf8 on_invalid = JsonInvalidUtf8::replace);

/// Appends `value` as compact JSON.
void append_json(std::string& out, const nlohmann::json& value, JsonInvalidUtf8 on_invalid = JsonInvalidUtf8::replace);

/// `value` as compact JSON.
std::string json_text(const nlohmann::json& value, JsonInvalidUtf8 on_invalid = JsonInvalidUtf8::replace);

}  // namespace attractor
