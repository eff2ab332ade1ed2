#include "attractor/model/value.h"

#include <charconv>
#include <limits>

namespace attractor {

std::optional<std::int64_t> parse_integer(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::size_t start = text[0] == '-' ? 1 : 0;
  if (start == text.size()) return std::nullopt;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<bool> parse_boolean(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

std::optional<double> parse_float(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::size_t i = text[0] == '-' ? 1 : 0;
  std::size_t digits_before = 0, digits_after = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    ++i;
    ++digits_before;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      ++i;
      ++digits_after;
    }
    if (digits_after == 0) return std::nullopt;
  } else if (digits_before == 0) {
    return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_duration_ms(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  auto number = parse_integer(text.substr(0, digits));
  if (!number) return std::nullopt;
  std::string_view unit = text.substr(digits);
  std::int64_t factor = 0;
  if (unit == "ms") factor = 1;
  else if (unit == "s") factor = 1000;
  else if (unit == "m") factor = 60'000;
  else if (unit == "h") factor = 3'600'000;
  else if (unit == "d") factor = 86'400'000;
  else return std::nullopt;
  if (*number > std::numeric_limits<std::int64_t>::max() / factor) return std::nullopt;
  return *number * factor;
}

bool is_identifier(std::string_view text) {
  if (text.empty()) return false;
  auto head = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!head(text[0])) return false;
  for (char c : text.substr(1)) {
    if (!head(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace attractor

namespace attractor {

SourceLocation locate_in_value(const SourceFile& file, SourceLocation value_start, std::size_t offset) {
  const std::string& raw = file.text();
  std::size_t pos = value_start.offset;
  if (!value_start.known() || pos >= raw.size()) return value_start;
  if (raw[pos] != '"') return file.locate(pos + offset);
  ++pos;
  // Walk the raw string the way the lexer unescapes it: \" \\ \n \t give one character,
  // backslash-newline gives none, any other escape is kept as two characters.
  std::size_t produced = 0;
  while (pos < raw.size() && raw[pos] != '"') {
    if (raw[pos] != '\\' || pos + 1 >= raw.size()) {
      if (produced == offset) break;
      ++produced;
      ++pos;
      continue;
    }
    char next = raw[pos + 1];
    if (next == '\n' || next == '\r') {
      pos += (next == '\r' && pos + 2 < raw.size() && raw[pos + 2] == '\n') ? 3 : 2;
      continue;
    }
    std::size_t width = (next == '"' || next == '\\' || next == 'n' || next == 't') ? 1 : 2;
    if (produced + width > offset) break;
    produced += width;
    pos += 2;
  }
  return file.locate(pos);
}

}  // namespace attractor
