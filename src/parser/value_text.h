#pragma once
/// \file
/// Small scans over the text of an attribute value, shared by the condition and stylesheet
/// grammars' error reporting.

#include <cstddef>
#include <string_view>

namespace attractor {

/// True for the whitespace the value grammars skip: space, tab, CR, LF.
constexpr bool is_value_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// First offset at or after `offset` that is not whitespace (or the end of `text`).
constexpr std::size_t skip_value_spaces(std::string_view text, std::size_t offset) {
  while (offset < text.size() && is_value_space(text[offset])) ++offset;
  return offset;
}

/// Offset of the double-quoted string left open at the end of `text`. Quotes appear only in
/// strings, where `\` escapes the next character, so a forward scan finds it.
constexpr std::size_t unterminated_quote(std::string_view text) {
  std::size_t open = 0;
  bool inside = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (inside && text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      inside = !inside;
      if (inside) open = i;
    }
  }
  return open;
}

}  // namespace attractor
