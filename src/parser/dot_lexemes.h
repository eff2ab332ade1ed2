#pragma once
/// \file
/// Lexical helpers shared by the DOT grammar (its primitive parsers), the AST builder and the
/// error reporter: whitespace/comment skipping, quoted-string scanning and unescaping, value
/// classification, keywords. Everything works on `const char*` ranges of the source text and
/// never allocates unless it produces a string.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "attractor/model/value.h"

namespace attractor::dot {

/// A located parse error thrown by the grammar's primitives; `dot_parser.cc` turns it into a
/// Diagnostic. `where` points into the source text.
struct DotError : std::runtime_error {
  DotError(const char* where, std::string rule, std::string message, std::string fix = {})
      : std::runtime_error(message),
        where(where),
        rule(std::move(rule)),
        message(std::move(message)),
        fix(std::move(fix)) {}
  const char* where;
  std::string rule;
  std::string message;
  std::string fix;
};

inline bool is_id_head(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_id_char(char c) { return is_id_head(c) || is_digit(c); }

/// Skips whitespace, `//` line comments, `/* */` block comments and `#` lines (a `#` that is the
/// first non-blank character of a line, as Graphviz treats C preprocessor output) starting at `p`.
/// `begin` is the start of the text (to recognise line starts). Throws DotError
/// `unterminated_comment` (pointing at the `/*`) when a block comment never ends.
const char* skip_space(const char* p, const char* begin, const char* end);

/// `p` points at an opening quote. Returns the position just past the closing quote; throws
/// `unterminated_string` (pointing at the opening quote) when the file ends first. Sets
/// `has_escape` when the content contains a backslash.
const char* scan_quoted(const char* p, const char* end, bool& has_escape);

/// Appends the unescaped content of the quoted string `[first, last)` (quotes included) to `out`:
/// `\"` `\\` `\n` `\t` are translated, backslash-newline is a line continuation (removed), any
/// other escape is kept verbatim (`\l` stays `\l`, as Graphviz keeps it).
void append_unescaped(const char* first, const char* last, std::string& out);

/// The length of a case-insensitive DOT keyword match of `word` at `p` (followed by a
/// non-identifier character), or 0.
std::size_t match_keyword(const char* p, const char* end, std::string_view word);

/// True if `text` is one of Graphviz's reserved words (any case): node, edge, graph, digraph,
/// subgraph, strict.
bool is_dot_keyword(std::string_view text);

/// True if `text` is an attribute key: Identifier ( '.' Identifier )*.
bool is_attribute_key(std::string_view text);

/// Classifies an unquoted value token as integer, float, duration, boolean or bare. Returns false
/// when a token that starts like a number is none of integer, float or duration.
bool classify_unquoted(std::string_view text, ValueKind& kind);

/// A short, printable description of what starts at `p` ("end of file", "'}'", "'foo'",
/// "a string", "byte 0x01"), for "expected X, found Y" messages.
std::string describe_found(const char* p, const char* end);

}  // namespace attractor::dot
