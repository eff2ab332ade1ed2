#pragma once
/// \file
/// A small lexical scanner shared by the code classifier and the compactor: splits C# or T-SQL
/// text into code, comment and string segments (so braces, keywords and names inside strings or
/// comments are never mistaken for code), and splits code into words and punctuation.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// Which comment and string syntax the scanner follows.
enum class CodeDialect {
  kCSharp,  ///< `//`, `/* */`; "..." with escapes, @"..." and $@"..." verbatim, """raw""", 'c'
  kSql,     ///< `--`, nested `/* */`; '...' and N'...' with '' escapes ("..." and [...] are names)
};

/// The kind of a segment.
enum class SegmentKind { kCode, kComment, kString };

/// A byte range `[begin, end)` of the scanned text. Comments and strings include their delimiters.
struct Segment {
  SegmentKind kind = SegmentKind::kCode;
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// Splits `text` into consecutive segments covering it entirely. Unterminated strings and
/// comments run to the end of the text (or of the line for regular C# strings).
std::vector<Segment> scan_segments(std::string_view text, CodeDialect dialect);

/// The content of a string segment without prefix and quotes (escapes are left as written).
std::string_view string_content(std::string_view literal);

/// A word (`[A-Za-z_@#][A-Za-z0-9_@#$]*`, a number, or in SQL a `[bracketed]` / `"quoted"`
/// name), a single punctuation character, or a whole string literal.
struct CodeToken {
  std::string_view text;
  std::size_t offset = 0;  ///< byte offset in the scanned text
  bool word = false;
  bool string = false;
};

/// Tokens of the code and string segments (comments and whitespace dropped), in order.
std::vector<CodeToken> code_tokens(std::string_view text, const std::vector<Segment>& segments, CodeDialect dialect);

/// ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b);

}  // namespace attractor
