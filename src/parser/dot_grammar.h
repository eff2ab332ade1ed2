#pragma once
/// \file
/// Declaration of the Spirit X3 DOT grammar (definitions live in dot_grammar.cc, instantiated
/// once for the iterator and context types of dot_grammar_config.h).

#include <cstddef>
#include <functional>

#include <boost/spirit/home/x3.hpp>

#include "parser/dot_ast.h"
#include "parser/dot_lexemes.h"

namespace attractor::dot {

namespace x3 = boost::spirit::x3;

/// Mutable state the grammar's primitives read through the X3 context (`state_tag`).
struct ParseState {
  const char* begin = nullptr;      ///< start of the text, for `#` line detection
  std::size_t max_value_bytes = 0;  ///< longest accepted value token
  int max_depth = 100;              ///< deepest accepted subgraph nesting
  int depth = 0;                    ///< current subgraph nesting
  /// Receives each top-level statement as soon as it is parsed; the grammar keeps none of them.
  std::function<void(ast::Statement&&)> on_statement;
};

/// Context tag under which the grammar finds its ParseState.
struct state_tag;

/// The skipper: whitespace, `//` and `/* */` comments, `#` lines. Throws on an unterminated
/// block comment.
struct Skipper : x3::parser<Skipper> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  const char* begin = nullptr;

  explicit Skipper(const char* text_begin) : begin(text_begin) {}

  template <typename Iterator, typename Context, typename RContext, typename Attribute>
  bool parse(Iterator& first, Iterator const& last, Context const&, RContext&, Attribute&) const {
    const char* p = skip_space(first, begin, last);
    if (p == first) return false;
    first = p;
    return true;
  }
};

namespace grammar {
using dot_file_type = x3::rule<class dot_file_class, ast::GraphName>;
BOOST_SPIRIT_DECLARE(dot_file_type)
}  // namespace grammar

/// The start rule: one `digraph` and nothing after it. Its attribute is the graph's name; the
/// top-level statements go to ParseState::on_statement.
grammar::dot_file_type const& dot_file();

}  // namespace attractor::dot
