#pragma once
/// \file
/// A tokenizer for SQL Server's dialect (T-SQL) as SSDT projects, migration scripts and query
/// strings write it. It never rejects a file: what it cannot close (a string, a bracketed name, a
/// block comment) becomes a ParseIssue and the token runs to the end of the text.
///
/// Token kinds and what they cover:
/// | kind        | text                                                                   |
/// |-------------|------------------------------------------------------------------------|
/// | kWord       | keywords and plain identifiers (letters, digits, `_`, `$`, UTF-8)       |
/// | kQuotedName | `[bracketed]` (with `]]` inside) and `"double-quoted"` identifiers, and  |
/// |             | `{placeholder}` holes of SQL built in C# (resolved by the graph linker)  |
/// | kVariable   | `@name`, `@@ROWCOUNT`                                                   |
/// | kTempName   | `#temp` and `##global` temporary tables                                 |
/// | kString     | `'text'` (with `''` inside) and `N'unicode'`                            |
/// | kNumber     | digits, `0x` binary literals, decimals                                  |
/// | kPunct      | one byte of anything else (`.`, `,`, `(`, `)`, `;`, `=`, ...)           |
/// | kBatchEnd   | `GO` (optionally with a count) alone on its line: ends a batch          |
/// Comments (`-- ...` and nested `/* ... */`) produce no token.

#include <string>
#include <string_view>
#include <vector>

#include "retrieval/local/syntax_tree.h"

namespace attractor::retrieval {

/// One token; `text` views the source passed to lex_tsql.
struct TsqlToken {
  enum class Kind { kWord, kQuotedName, kVariable, kTempName, kString, kNumber, kPunct, kBatchEnd };
  Kind kind = Kind::kPunct;
  std::string_view text;
  size_t begin = 0;  ///< byte offset of the first byte
  size_t end = 0;    ///< byte offset after the last byte
  int line = 1;      ///< 1-based line of the first byte

  /// True for a kWord equal to `keyword` ignoring ASCII case (`keyword` is lowercase).
  bool is(std::string_view keyword) const;
  /// True for a kPunct equal to `c`.
  bool is_punct(char c) const { return kind == Kind::kPunct && text.size() == 1 && text[0] == c; }
  /// True for a name part: a kWord or a kQuotedName.
  bool is_name() const { return kind == Kind::kWord || kind == Kind::kQuotedName; }
};

/// The tokens of a text and what could not be closed.
struct TsqlTokens {
  std::vector<TsqlToken> tokens;
  std::vector<ParseIssue> issues;
};

/// Tokenizes T-SQL. Linear in the size of the text.
TsqlTokens lex_tsql(std::string_view source);

/// A name part as written, without its brackets or quotes (`[a]]b]` -> `a]b`).
std::string unquote_tsql_name(std::string_view part);

}  // namespace attractor::retrieval
