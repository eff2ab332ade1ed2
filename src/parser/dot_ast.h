#pragma once
/// \file
/// The plain AST the DOT grammar produces (spec §2.2). Tokens are views into the source text, so
/// the AST costs no string copies and every token carries its own position: the builder turns
/// `token.first - text_begin` into a SourceLocation. (This replaces x3::position_tagged plus a
/// position cache: each located item is a token, so no side table is needed.)

#include <string_view>
#include <vector>

#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

namespace attractor::dot::ast {

namespace x3 = boost::spirit::x3;

/// How a token was written.
enum class TokenForm {
  kPlain,   ///< unquoted identifier, number, duration, bare value
  kQuoted,  ///< one double-quoted string, quotes included in [first, last)
  kConcat,  ///< Graphviz concatenation "a" + "b": [first, last) spans all pieces
};

/// A slice of the source text.
struct Token {
  const char* first = nullptr;
  const char* last = nullptr;
  TokenForm form = TokenForm::kPlain;

  std::string_view raw() const { return {first, static_cast<std::size_t>(last - first)}; }
  /// Text without quotes; only meaningful for kPlain and for kQuoted without escapes.
  std::string_view inner() const {
    return form == TokenForm::kPlain ? raw() : std::string_view(first + 1, static_cast<std::size_t>(last - first - 2));
  }
};

/// `key = value` inside an attribute block.
struct Attribute {
  Token key;
  Token value;
};
using AttrList = std::vector<Attribute>;

/// Which default block an attribute statement sets.
enum class DefaultsTarget { kGraph, kNode, kEdge };

/// `graph [..]`, `node [..]` or `edge [..]`.
struct AttrStmt {
  DefaultsTarget target = DefaultsTarget::kGraph;
  AttrList attrs;
};

/// `key = value` as a statement (a graph attribute, or a subgraph attribute inside a subgraph).
struct Assignment {
  Token key;
  Token value;
};

/// `a [..]` (no targets) or `a -> b -> c [..]`.
struct NodeOrEdgeStmt {
  Token head;
  std::vector<Token> targets;
  AttrList attrs;
};

struct Subgraph;

/// One statement of a graph or subgraph body.
struct Statement : x3::variant<AttrStmt, Assignment, NodeOrEdgeStmt, x3::forward_ast<Subgraph>> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `subgraph name? { ... }` or an anonymous `{ ... }`; `open` is the `{`.
struct Subgraph {
  Token open;
  std::vector<Statement> body;
};

/// The name of `digraph name? { ... }`. The file's top-level statements are not collected into
/// one tree: the parser hands each to the graph builder as soon as it is parsed, so the AST of
/// the whole file never exists at once (only the AST of the largest top-level statement does).
using GraphName = boost::optional<Token>;

}  // namespace attractor::dot::ast
