#pragma once
/// \file
/// Line starts of a text and conversions between byte offsets and LSP positions (0-based line,
/// character counted in the negotiated encoding: UTF-8 bytes or UTF-16 code units).

#include <cstddef>
#include <string_view>
#include <vector>

namespace attractor {

/// How a position's character counts (LSP 3.17 `positionEncoding`).
enum class PositionEncoding { kUtf8, kUtf16 };

/// A 0-based line and character.
struct TextPosition {
  std::size_t line = 0;
  std::size_t character = 0;
  bool operator==(const TextPosition&) const = default;
};

/// The line structure of one text; `text` must outlive it.
class TextLines {
 public:
  explicit TextLines(std::string_view text);

  std::size_t line_count() const { return starts_.size(); }
  /// Byte offset where 0-based `line` starts (the text's size past the last line).
  std::size_t line_start(std::size_t line) const;
  /// The line holding byte `offset` (clamped to the text).
  std::size_t line_of(std::size_t offset) const;
  /// The position of byte `offset`.
  TextPosition position(std::size_t offset, PositionEncoding encoding) const;
  /// The byte offset of `position`; a line past the end clamps to the end of the text, a
  /// character past the end of its line to the line's end, one inside a UTF-8 sequence or a
  /// surrogate pair to the start of that character.
  std::size_t offset(TextPosition position, PositionEncoding encoding) const;

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

}  // namespace attractor
