/// \file
/// The Spirit X3 DOT grammar (spec §2.2 plus the unambiguous Graphviz extensions listed in
/// dot_parser.h). Structure is written as X3 rules; the lexemes (identifiers, strings, values,
/// keywords, `->`) are small hand-written X3 primitives that scan `const char*` directly and
/// throw DotError for input that is recognisably wrong (undirected edges, HTML labels, invalid
/// node ids...), so each such error gets its own rule id and message. Everything else that does
/// not match ends in an x3::expectation_failure naming the rule that was expected.

#include "parser/dot_grammar.h"

#include <string>

#include "parser/dot_ast_adapted.h"
#include "parser/dot_grammar_config.h"

/// Attribute lists start with room for four entries: most lists are short, and growing 1, 2, 4
/// would allocate three times (and free twice) per statement.
template <>
struct boost::spirit::x3::traits::push_back_container<attractor::dot::ast::AttrList> {
  template <typename T>
  static bool call(attractor::dot::ast::AttrList& list, T&& value) {
    if (list.capacity() == 0) list.reserve(4);
    list.push_back(std::forward<T>(value));
    return true;
  }
};

namespace attractor::dot {
namespace {

using ast::Token;
using ast::TokenForm;

bool is_high(char c) { return static_cast<unsigned char>(c) >= 0x80; }

/// Characters of a "loose" token: what a user might have meant as one id or value.
bool is_loose_char(const char* p, const char* end) {
  char c = *p;
  if (is_id_char(c) || c == '.' || c == ':' || is_high(c)) return true;
  return c == '-' && !(p + 1 < end && (p[1] == '>' || p[1] == '-'));
}

const char* scan_loose(const char* p, const char* end) {
  while (p < end && is_loose_char(p, end)) ++p;
  return p;
}

bool starts_loose(const char* p, const char* end) {
  if (p >= end) return false;
  char c = *p;
  if (is_id_char(c) || is_high(c)) return true;
  return (c == '-' || c == '.') && p + 1 < end && (is_digit(p[1]) || p[1] == '.');
}

/// An identifier suggestion for an invalid id: invalid characters become '_', a leading digit
/// gets an 'n' prefix.
std::string suggest_identifier(std::string_view text) {
  std::string out;
  for (char c : text) {
    char mapped = is_id_char(c) ? c : '_';
    if (mapped == '_' && !out.empty() && out.back() == '_' && !is_id_char(c)) continue;
    out += mapped;
  }
  while (!out.empty() && out.back() == '_' && text.back() != '_') out.pop_back();
  if (out.empty() || is_digit(out[0])) out.insert(0, "n");
  if (is_dot_keyword(out)) out += "_node";
  return out;
}

std::string shorten(std::string_view text) {
  if (text.size() <= 40) return std::string(text);
  return std::string(text.substr(0, 37)) + "...";
}

[[noreturn]] void throw_node_id(const char* where, std::string_view text) {
  std::string suggestion = suggest_identifier(text);
  if (is_dot_keyword(text)) {
    throw DotError(where, "node_id", "'" + std::string(text) + "' is a DOT keyword and cannot be an unquoted node id",
                   "quote it (\"" + std::string(text) + "\") or choose another id");
  }
  throw DotError(where, "node_id",
                 "invalid node id '" + shorten(text) +
                     "': node ids must be identifiers ([A-Za-z_][A-Za-z0-9_]*) because they become "
                     "directory names in the run directory",
                 "use an identifier and put the text in a label: " + suggestion + " [label=\"" + shorten(text) + "\"]");
}

template <typename Attribute>
void store(const Token& token, Attribute& attr) {
  x3::traits::move_to(token, attr);
}

ParseState& state_of(auto const& context) { return x3::get<state_tag>(context).get(); }

void check_size(const ParseState& state, const char* first, const char* last) {
  auto size = static_cast<std::size_t>(last - first);
  if (size > state.max_value_bytes) {
    throw DotError(first, "value_too_large",
                   "value is " + std::to_string(size) + " bytes, more than the limit of " +
                       std::to_string(state.max_value_bytes) + " bytes",
                   "move large text into a file and reference it");
  }
}

/// Base for primitives that produce a Token.
template <typename Derived>
struct token_parser : x3::parser<Derived> {
  using attribute_type = Token;
};

/// A case-insensitive keyword (Graphviz keywords are case-insensitive), no attribute.
struct keyword_parser : x3::parser<keyword_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  std::string_view word;
  constexpr explicit keyword_parser(std::string_view w) : word(w) {}

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    std::size_t n = match_keyword(first, last, word);
    if (n == 0) return false;
    first += n;
    return true;
  }
};

/// `graph`, `node` or `edge` introducing a default block.
struct defaults_keyword_parser : x3::parser<defaults_keyword_parser> {
  using attribute_type = ast::DefaultsTarget;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    ast::DefaultsTarget target;
    std::size_t n = 0;
    if ((n = match_keyword(first, last, "node")) != 0) target = ast::DefaultsTarget::kNode;
    else if ((n = match_keyword(first, last, "edge")) != 0) target = ast::DefaultsTarget::kEdge;
    else if ((n = match_keyword(first, last, "graph")) != 0) target = ast::DefaultsTarget::kGraph;
    else return false;
    first += n;
    x3::traits::move_to(target, attr);
    return true;
  }
};

/// Input that is recognisably wrong at the top level: `strict`, an undirected `graph`, or a
/// second graph after the first one. Matches the empty string; throws when it recognises its
/// keyword.
struct reject_parser : x3::parser<reject_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  enum Kind { kStrict, kUndirected, kSecondGraph } kind;
  constexpr explicit reject_parser(Kind k) : kind(k) {}

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    It p = first;
    x3::skip_over(p, last, ctx);
    switch (kind) {
      case kStrict:
        if (match_keyword(p, last, "strict")) {
          throw DotError(p, "strict", "'strict' graphs are not supported: attractor keeps every edge as written",
                         "remove 'strict'");
        }
        break;
      case kUndirected:
        if (match_keyword(p, last, "graph")) {
          throw DotError(p, "undirected", "undirected graph: attractor pipelines must be declared with 'digraph'",
                         "write 'digraph NAME { ... }' and use '->' for edges");
        }
        break;
      case kSecondGraph:
        if (match_keyword(p, last, "digraph") || match_keyword(p, last, "graph") || match_keyword(p, last, "strict")) {
          throw DotError(p, "multiple_graphs",
                         "a second graph in the same file: a pipeline file holds exactly one digraph",
                         "move each graph to its own .dot file");
        }
        break;
    }
    return true;
  }
};

/// Attribute key: Identifier ('.' Identifier)*, or a quoted string holding such a key. In
/// `Strict` mode (inside attribute blocks) a quoted non-key is an error; otherwise it just fails
/// so the statement can be tried as a node statement.
template <bool Strict>
struct key_parser : token_parser<key_parser<Strict>> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    const char* p = first;
    if (p < last && *p == '"') {
      bool escaped = false;
      const char* q = scan_quoted(p, last, escaped);
      std::string_view inner(p + 1, static_cast<std::size_t>(q - p - 2));
      if (escaped || !is_attribute_key(inner)) {
        if (!Strict) return false;
        throw DotError(p, "syntax",
                       "invalid attribute key \"" + shorten(inner) +
                           "\": keys are identifiers, optionally qualified with '.' (human.default_choice)");
      }
      store(Token{p, q, TokenForm::kQuoted}, attr);
      first = q;
      return true;
    }
    if (p >= last || !is_id_head(*p)) return false;
    const char* q = p + 1;
    for (;;) {
      while (q < last && is_id_char(*q)) ++q;
      if (q + 1 < last && *q == '.' && is_id_head(q[1])) {
        q += 2;
        continue;
      }
      break;
    }
    store(Token{p, q, TokenForm::kPlain}, attr);
    first = q;
    return true;
  }
};

/// A node id: an identifier or a quoted string whose content is one. Anything else that looks
/// like an id (numbers, dashes, ports, non-ASCII, quoted text) is a `node_id` error.
struct node_id_parser : token_parser<node_id_parser> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    const char* p = first;
    if (p < last && *p == '"') {
      bool escaped = false;
      const char* q = scan_quoted(p, last, escaped);
      std::string_view inner(p + 1, static_cast<std::size_t>(q - p - 2));
      if (escaped || !is_identifier(inner)) throw_node_id(p, inner);
      store(Token{p, q, TokenForm::kQuoted}, attr);
      first = q;
      return true;
    }
    if (!starts_loose(p, last)) return false;
    const char* q = scan_loose(p, last);
    std::string_view text(p, static_cast<std::size_t>(q - p));
    if (!is_identifier(text) || is_dot_keyword(text)) throw_node_id(p, text);
    store(Token{p, q, TokenForm::kPlain}, attr);
    first = q;
    return true;
  }
};

/// The graph's name: an identifier or a quoted identifier (it becomes part of run directory
/// names). Fails quietly when absent.
struct graph_name_parser : token_parser<graph_name_parser> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    const char* p = first;
    const char* q = nullptr;
    std::string_view inner;
    bool valid = false;
    TokenForm form = TokenForm::kPlain;
    if (p < last && *p == '"') {
      bool escaped = false;
      q = scan_quoted(p, last, escaped);
      inner = std::string_view(p + 1, static_cast<std::size_t>(q - p - 2));
      valid = !escaped && is_identifier(inner);
      form = TokenForm::kQuoted;
    } else if (starts_loose(p, last)) {
      q = scan_loose(p, last);
      inner = std::string_view(p, static_cast<std::size_t>(q - p));
      valid = is_identifier(inner) && !is_dot_keyword(inner);
    } else {
      return false;
    }
    if (!valid) {
      throw DotError(p, "graph_id",
                     "invalid graph name '" + shorten(inner) +
                         "': the name must be an identifier ([A-Za-z_][A-Za-z0-9_]*) because it becomes part "
                         "of run directory names",
                     "use an identifier such as '" + suggest_identifier(inner) +
                         "' and put the display text in graph [label=\"...\"]");
    }
    store(Token{p, q, form}, attr);
    first = q;
    return true;
  }
};

/// A subgraph name: identifier, number or any quoted string (it is not used for anything).
struct subgraph_name_parser : token_parser<subgraph_name_parser> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    const char* p = first;
    const char* q = nullptr;
    if (p < last && *p == '"') {
      bool escaped = false;
      q = scan_quoted(p, last, escaped);
    } else if (starts_loose(p, last)) {
      q = scan_loose(p, last);
    } else {
      return false;
    }
    store(Token{p, q, TokenForm::kPlain}, attr);
    first = q;
    return true;
  }
};

/// `->`; `--` is an `undirected` error.
struct edge_op_parser : x3::parser<edge_op_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    if (last - first < 2 || first[0] != '-') return false;
    if (first[1] == '>') {
      first += 2;
      return true;
    }
    if (first[1] == '-') {
      throw DotError(first, "undirected", "undirected edge '--': attractor pipelines are directed graphs",
                     "use '->' for edges");
    }
    return false;
  }
};

/// An attribute value: quoted string (with Graphviz `+` concatenation), integer, float,
/// duration, boolean or bare word. `<...>` is an `html_label` error, a malformed number a
/// `bad_value` error, an oversized value a `value_too_large` error.
struct value_parser : token_parser<value_parser> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    const ParseState& state = state_of(ctx);
    const char* p = first;
    if (p >= last) return false;
    char c = *p;
    if (c == '"') {
      bool escaped = false;
      const char* q = scan_quoted(p, last, escaped);
      TokenForm form = TokenForm::kQuoted;
      for (;;) {
        const char* plus = skip_space(q, state.begin, last);
        if (plus >= last || *plus != '+') break;
        const char* next = skip_space(plus + 1, state.begin, last);
        if (next >= last || *next != '"') break;
        q = scan_quoted(next, last, escaped);
        form = TokenForm::kConcat;
      }
      check_size(state, p, q);
      store(Token{p, q, form}, attr);
      first = q;
      return true;
    }
    if (c == '<') {
      throw DotError(p, "html_label", "HTML-like values ('<...>') are not supported",
                     "use a quoted string, e.g. label=\"...\"");
    }
    if (!starts_loose(p, last)) return false;
    const char* q = scan_loose(p, last);
    check_size(state, p, q);
    std::string_view text(p, static_cast<std::size_t>(q - p));
    ast::TokenForm form = TokenForm::kPlain;
    ValueKind kind;
    if (!classify_unquoted(text, kind)) {
      throw DotError(p, "bad_value",
                     "invalid value '" + shorten(text) +
                         "': expected a number (42, -1, 0.5), a duration (250ms, 900s, 15m, 2h, 1d), "
                         "true/false, an identifier or a quoted string",
                     "quote it if it is meant as text: \"" + shorten(text) + "\"");
    }
    store(Token{p, q, form}, attr);
    first = q;
    return true;
  }
};

/// `{` opening a subgraph body: counts nesting and stops before it gets too deep.
struct scope_open_parser : token_parser<scope_open_parser> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first >= last || *first != '{') return false;
    ParseState& state = state_of(ctx);
    if (state.depth >= state.max_depth) {
      throw DotError(first, "nesting_depth",
                     "subgraphs are nested more than " + std::to_string(state.max_depth) + " levels deep",
                     "flatten the subgraphs");
    }
    ++state.depth;
    store(Token{first, first + 1, TokenForm::kPlain}, attr);
    ++first;
    return true;
  }
};

/// `}` closing a subgraph body.
struct scope_close_parser : x3::parser<scope_close_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    if (first >= last || *first != '}') return false;
    --state_of(ctx).depth;
    ++first;
    return true;
  }
};

/// `[ subject ]`: parses the subject straight into the caller's container (an X3 sequence would
/// parse into a temporary container and copy it), and reports a missing `]` as an expectation
/// failure naming "']' or another attribute".
template <typename Subject>
struct bracketed_directive : x3::unary_parser<Subject, bracketed_directive<Subject>> {
  using base_type = x3::unary_parser<Subject, bracketed_directive<Subject>>;
  static bool const handles_container = true;
  constexpr explicit bracketed_directive(Subject const& subject) : base_type(subject) {}

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    It p = first;
    x3::skip_over(p, last, ctx);
    if (p == last || *p != '[') return false;
    ++p;
    if (!this->subject.parse(p, last, ctx, rctx, attr)) return false;
    x3::skip_over(p, last, ctx);
    if (p == last || *p != ']') boost::throw_exception(x3::expectation_failure<It>(p, "']' or another attribute"));
    first = p + 1;
    return true;
  }
};

/// `*subject` for the top-level statements: parses them one at a time into a local AST and hands
/// each to ParseState::on_statement, so no statement outlives the call that applies it.
template <typename Subject>
struct streamed_directive : x3::unary_parser<Subject, streamed_directive<Subject>> {
  using base_type = x3::unary_parser<Subject, streamed_directive<Subject>>;
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  constexpr explicit streamed_directive(Subject const& subject) : base_type(subject) {}

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr&) const {
    ParseState& state = state_of(ctx);
    for (;;) {
      ast::Statement statement;
      if (!this->subject.parse(first, last, ctx, rctx, statement)) return true;
      if (state.on_statement) state.on_statement(std::move(statement));
    }
  }
};

struct streamed_gen {
  template <typename Subject>
  constexpr streamed_directive<typename x3::extension::as_parser<Subject>::value_type> operator[](
      Subject const& subject) const {
    return streamed_directive<typename x3::extension::as_parser<Subject>::value_type>(x3::as_parser(subject));
  }
};
constexpr streamed_gen streamed{};

struct bracketed_gen {
  template <typename Subject>
  constexpr bracketed_directive<typename x3::extension::as_parser<Subject>::value_type> operator[](
      Subject const& subject) const {
    return bracketed_directive<typename x3::extension::as_parser<Subject>::value_type>(x3::as_parser(subject));
  }
};
constexpr bracketed_gen bracketed{};

constexpr keyword_parser subgraph_kw{"subgraph"};
constexpr defaults_keyword_parser defaults_kw{};
constexpr key_parser<false> assign_key{};
constexpr key_parser<true> attr_key{};
constexpr node_id_parser node_id{};
constexpr graph_name_parser graph_name{};
constexpr subgraph_name_parser subgraph_name{};
constexpr edge_op_parser edge_op{};
constexpr value_parser value_token{};
constexpr scope_open_parser scope_open_token{};
constexpr scope_close_parser scope_close_token{};
constexpr reject_parser reject_strict{reject_parser::kStrict};
constexpr reject_parser reject_undirected{reject_parser::kUndirected};
constexpr reject_parser reject_second_graph{reject_parser::kSecondGraph};

}  // namespace

namespace grammar {

// Named rules: an expectation failure reports the rule's name as what was expected.
x3::rule<class equals_class> const equals = "'='";
x3::rule<class value_class, Token> const a_value = "a value";
x3::rule<class target_class, Token> const target_id = "a node id after '->'";
x3::rule<class open_brace_class> const open_brace = "'{'";
x3::rule<class close_graph_class> const close_graph = "'}' or a statement";
x3::rule<class scope_open_class, Token> const scope_open = "'{'";
x3::rule<class scope_close_class> const scope_close = "'}' or a statement";
x3::rule<class digraph_kw_class> const digraph_kw = "'digraph'";
x3::rule<class end_of_file_class> const end_of_file = "end of file after the graph's closing '}'";

x3::rule<class attribute_class, ast::Attribute> const attribute = "an attribute";
x3::rule<class attr_block_class, ast::AttrList> const attr_block = "'['";
x3::rule<class attr_lists_class, ast::AttrList> const attr_lists = "'['";
x3::rule<class attr_stmt_class, ast::AttrStmt> const attr_stmt = "a default block";
x3::rule<class assignment_class, ast::Assignment> const assignment = "an assignment";
x3::rule<class node_or_edge_class, ast::NodeOrEdgeStmt> const node_or_edge = "a node or edge statement";
x3::rule<class named_subgraph_class, ast::Subgraph> const named_subgraph = "a subgraph";
x3::rule<class anon_subgraph_class, ast::Subgraph> const anon_subgraph = "a subgraph";
x3::rule<class statement_class, ast::Statement> const statement = "a statement";
x3::rule<class graph_class, ast::GraphName> const graph = "a digraph";
dot_file_type const dot_file = "a DOT file";

auto const equals_def = x3::lit('=');
auto const a_value_def = value_token;
auto const target_id_def = node_id;
auto const open_brace_def = x3::lit('{');
auto const close_graph_def = x3::lit('}');
auto const scope_open_def = scope_open_token;
auto const scope_close_def = scope_close_token;
auto const digraph_kw_def = keyword_parser{"digraph"};
auto const end_of_file_def = x3::eoi;

auto const attribute_def = attr_key > equals > a_value;
auto const attr_block_def = bracketed[*(attribute >> -(x3::lit(',') | ';'))];
auto const attr_lists_def = +attr_block;
auto const attr_stmt_def = defaults_kw > attr_lists;
auto const assignment_def = assign_key >> '=' > a_value;
auto const node_or_edge_def = node_id >> *(edge_op > target_id) >> *attr_block;
auto const named_subgraph_def = subgraph_kw > x3::omit[-subgraph_name] > scope_open > *statement > scope_close;
auto const anon_subgraph_def = scope_open_token > *statement > scope_close;
auto const statement_def = (named_subgraph | anon_subgraph | attr_stmt | assignment | node_or_edge) >> -x3::lit(';');
auto const graph_def = reject_strict >> reject_undirected > digraph_kw > -graph_name > open_brace >
                       streamed[statement] > close_graph;
auto const dot_file_def = graph > reject_second_graph > end_of_file;

BOOST_SPIRIT_DEFINE(equals, a_value, target_id, open_brace, close_graph, scope_open, scope_close, digraph_kw,
                    end_of_file, attribute, attr_block, attr_lists, attr_stmt, assignment, node_or_edge, named_subgraph,
                    anon_subgraph, statement, graph, dot_file)

BOOST_SPIRIT_INSTANTIATE(dot_file_type, iterator_type, context_type)

}  // namespace grammar

grammar::dot_file_type const& dot_file() { return grammar::dot_file; }

}  // namespace attractor::dot
