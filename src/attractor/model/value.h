#pragma once
/// \file
/// Attribute values as written in DOT (spec §2.4) and their typed readings.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attractor/model/source_file.h"

namespace attractor {

/// The lexical form a value had in the source. Quoted values are kString even when their content
/// reads as a number or duration; typed accessors parse the text, so `timeout="900s"` works.
enum class ValueKind : std::uint8_t { kString, kInteger, kFloat, kBoolean, kDuration, kBare };

/// One attribute value held by its reader or its writer: its text (unescaped for quoted strings) and
/// where it was written. Graphs store values more compactly and hand them out as ValueView
/// (attribute_entry.h).
struct Value {
  ValueKind kind = ValueKind::kString;
  std::string text;
  /// Position of the first character of the value token (the opening quote for strings).
  SourceLocation location;

  Value() = default;
  Value(ValueKind k, std::string t, SourceLocation loc = {}) : kind(k), text(std::move(t)), location(loc) {}
};

/// `-?[0-9]+` -> integer; nullopt otherwise (including overflow).
std::optional<std::int64_t> parse_integer(std::string_view text);
/// `true`/`false` -> bool; nullopt otherwise.
std::optional<bool> parse_boolean(std::string_view text);
/// `-?[0-9]*.[0-9]+` or an integer -> double; nullopt otherwise.
std::optional<double> parse_float(std::string_view text);
/// `N(ms|s|m|h|d)` -> milliseconds; nullopt otherwise (including overflow).
std::optional<std::int64_t> parse_duration_ms(std::string_view text);
/// True if `text` matches `[A-Za-z_][A-Za-z0-9_]*`.
bool is_identifier(std::string_view text);

}  // namespace attractor

namespace attractor {

/// Maps a byte offset inside a value's text (after unescaping) back to its position in `file`,
/// so errors found inside attribute values (conditions, stylesheets) point at the right column.
/// `value_start` is the value's location; it is returned as is when the value did not come from
/// `file`.
SourceLocation locate_in_value(const SourceFile& file, SourceLocation value_start, std::size_t offset);

}  // namespace attractor
