#pragma once
/// \file
/// A lossless, tolerant reading of a `.dot` file for the tools that edit it (`attractor fmt`, the
/// language server): every byte belongs to a token or to the whitespace between two, comments
/// are tokens, and a half-typed file still yields a tree (unknown input becomes an error
/// statement). The parser in src/parser stays the judge of what is valid; this reading only
/// says where things are (docs/authoring.md).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace attractor {

/// What a token is.
enum class SyntaxKind : std::uint8_t {
  kWord,       ///< identifier, number, duration or bare value (no quotes)
  kString,     ///< a double-quoted string, quotes included
  kLBrace,     ///< {
  kRBrace,     ///< }
  kLBracket,   ///< [
  kRBracket,   ///< ]
  kSemicolon,  ///< ;
  kComma,      ///< ,
  kEquals,     ///< =
  kArrow,      ///< -> or --
  kPlus,       ///< + (string concatenation)
  kComment,    ///< `// ...`, `/* ... */` or a `#` line
  kOther,      ///< any other byte
};

/// One token: byte offsets [begin, end) into the text.
struct SyntaxToken {
  SyntaxKind kind = SyntaxKind::kOther;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t line = 0;          ///< 0-based line of `begin`
  std::uint32_t end_line = 0;      ///< 0-based line of the last byte
  bool blank_line_before = false;  ///< an empty line separates it from the previous token
  bool unterminated = false;       ///< a string or block comment the file ends inside
};

/// Index of a token in SyntaxTree::tokens; kNoToken when absent.
using TokenIndex = std::uint32_t;
inline constexpr TokenIndex kNoToken = static_cast<TokenIndex>(-1);

/// A value: one token, or strings joined with `+` (tokens first..last, inclusive).
struct SyntaxValue {
  TokenIndex first = kNoToken;
  TokenIndex last = kNoToken;
};

/// `key = value` inside `[...]`; comments on the lines before it and after it on its line.
struct SyntaxAttr {
  TokenIndex key = kNoToken;
  std::optional<SyntaxValue> value;  ///< absent while the value is still being typed
  std::vector<TokenIndex> leading;
  std::vector<TokenIndex> trailing;
};

/// One `[...]` block; `close` is kNoToken when the file ends (or a statement starts) first.
struct SyntaxAttrList {
  TokenIndex open = kNoToken;
  TokenIndex close = kNoToken;
  std::vector<SyntaxAttr> attrs;
  std::vector<TokenIndex> dangling;  ///< comments after the last attribute
};

struct SyntaxBlock;

/// One statement of a graph or subgraph body.
struct SyntaxStmt {
  enum class Kind : std::uint8_t {
    kDefaults,  ///< `graph|node|edge [...]`: `keyword` is the keyword token
    kAssign,    ///< `key = value`: ids[0] is the key
    kNode,      ///< `id [...]`: ids[0]
    kEdge,      ///< `a -> b -> c [...]`: ids in order
    kSubgraph,  ///< `subgraph name? { ... }` or `{ ... }`: `keyword` may be kNoToken, ids holds the name
    kError,     ///< tokens that start no statement
  };
  Kind kind = Kind::kError;
  TokenIndex first = kNoToken;  ///< first token (comments excluded)
  TokenIndex last = kNoToken;   ///< last token (comments excluded)
  TokenIndex keyword = kNoToken;
  std::vector<TokenIndex> ids;
  std::optional<SyntaxValue> value;
  std::vector<SyntaxAttrList> lists;
  std::vector<SyntaxBlock> body;     ///< the subgraph's body: exactly one element for kSubgraph
  std::vector<TokenIndex> leading;   ///< comments on the lines before it
  std::vector<TokenIndex> inner;     ///< comments between its own tokens (outside attributes)
  std::vector<TokenIndex> trailing;  ///< a comment after it on its last line
  bool blank_line_before = false;
};

/// The statements between `{` and `}`; `close` is kNoToken when the file ends first.
struct SyntaxBlock {
  TokenIndex open = kNoToken;
  TokenIndex close = kNoToken;
  std::vector<SyntaxStmt> stmts;
  std::vector<TokenIndex> dangling;  ///< comments after the last statement
};

/// The whole file.
struct SyntaxTree {
  std::string_view text;
  std::vector<SyntaxToken> tokens;
  std::vector<TokenIndex> leading;  ///< comments before `digraph`
  TokenIndex strict_kw = kNoToken;
  TokenIndex graph_kw = kNoToken;  ///< `digraph` (or `graph`)
  TokenIndex name = kNoToken;
  SyntaxBlock body;
  std::vector<TokenIndex> trailing;  ///< comments after the closing `}`
  std::vector<TokenIndex> stray;     ///< other tokens after the closing `}`
  bool complete = false;             ///< the header and both braces are present and nothing strays

  std::string_view token_text(TokenIndex i) const {
    return text.substr(tokens[i].begin, tokens[i].end - tokens[i].begin);
  }
};

/// True when `word` is the DOT keyword `keyword` (lower case) in any case, as Graphviz reads them.
bool is_keyword_token(std::string_view word, std::string_view keyword);

/// A character of a context key or node id as conditions write them: letters, digits, `_`, `.`.
constexpr bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/// Splits `text` into tokens; never fails.
std::vector<SyntaxToken> tokenize_dot(std::string_view text);

/// Tokens plus the tolerant statement tree. Nesting deeper than kMaxSyntaxDepth subgraphs is read
/// as error statements. `text` must outlive the tree.
SyntaxTree read_syntax(std::string_view text);

/// How deep subgraphs nest before read_syntax stops descending.
inline constexpr int kMaxSyntaxDepth = 100;

/// The unquoted text of a word or of a string without escapes; nullopt for a string with escapes.
std::optional<std::string_view> plain_token_text(const SyntaxTree& tree, TokenIndex i);

/// Calls `visit` on every statement of `block` and of the subgraphs inside it, parents first.
template <typename Visit>
void for_each_stmt(const SyntaxBlock& block, Visit&& visit) {
  for (const SyntaxStmt& stmt : block.stmts) {
    visit(stmt);
    for (const SyntaxBlock& inner : stmt.body) for_each_stmt(inner, visit);
  }
}

}  // namespace attractor
