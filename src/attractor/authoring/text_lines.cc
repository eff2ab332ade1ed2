#include "attractor/authoring/text_lines.h"

#include <algorithm>

namespace attractor {

namespace {

/// Bytes of the UTF-8 sequence that starts with `lead` (1 for a stray continuation byte).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

TextLines::TextLines(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts_.push_back(i + 1);
  }
}

std::size_t TextLines::line_start(std::size_t line) const {
  return line < starts_.size() ? starts_[line] : text_.size();
}

std::size_t TextLines::line_of(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<std::size_t>(it - starts_.begin()) - 1;
}

TextPosition TextLines::position(std::size_t offset, PositionEncoding encoding) const {
  offset = std::min(offset, text_.size());
  std::size_t line = line_of(offset);
  std::size_t start = starts_[line];
  if (encoding == PositionEncoding::kUtf8) return {line, offset - start};
  std::size_t units = 0;
  for (std::size_t i = start; i < offset;) {
    std::size_t n = sequence_length(static_cast<unsigned char>(text_[i]));
    units += n == 4 ? 2 : 1;
    i += n;
  }
  return {line, units};
}

std::size_t TextLines::offset(TextPosition position, PositionEncoding encoding) const {
  if (position.line >= starts_.size()) return text_.size();
  std::size_t start = starts_[position.line];
  std::size_t end = position.line + 1 < starts_.size() ? starts_[position.line + 1] - 1 : text_.size();
  if (end > start && text_[end - 1] == '\r') --end;
  if (encoding == PositionEncoding::kUtf8) {
    std::size_t at = std::min(start + position.character, end);
    while (at > start && at < text_.size() && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) --at;
    return at;
  }
  std::size_t units = 0;
  std::size_t i = start;
  while (i < end) {
    std::size_t n = sequence_length(static_cast<unsigned char>(text_[i]));
    std::size_t width = n == 4 ? 2 : 1;
    if (units + width > position.character) break;
    units += width;
    i = std::min(i + n, end);
  }
  return i;
}

}  // namespace attractor
