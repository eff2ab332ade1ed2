#include "parser/condition.h"

#include "parser/ascii_space.h"
#include "parser/value_text.h"

#include <memory>
#include <unordered_map>

#include <boost/spirit/home/x3.hpp>

/// \file
/// The condition grammar (spec §10.2) as a Spirit X3 parser. Beyond the spec's grammar it accepts
/// bare context keys (`tests_passed`, used by §10.5's truthiness clause), `==` as a spelling of `=`
/// (graphs/fidelity.dot writes `review_passed == true`), and numeric literals with a fraction (`0.5`), since
/// values compare as strings anyway.

namespace attractor {
namespace {

namespace x3 = boost::spirit::x3;
using Op = ConditionClause::Op;

struct ParseState {
  const char* base = nullptr;
  Condition condition;
};
struct state_tag;

const auto on_key = [](auto& ctx) {
  ParseState& state = x3::get<state_tag>(ctx).get();
  ConditionClause clause;
  const auto& range = x3::_attr(ctx);
  clause.key.assign(range.begin(), range.end());
  clause.offset = static_cast<std::size_t>(range.begin() - state.base);
  state.condition.clauses.push_back(std::move(clause));
};

template <Op kOp>
struct SetOperator {
  template <typename Context>
  void operator()(Context& ctx) const {
    ParseState& state = x3::get<state_tag>(ctx).get();
    state.condition.clauses.back().op = kOp;
    state.condition.clauses.back().literal = x3::_attr(ctx);
  }
};

struct EscapeTable : x3::symbols<char> {
  EscapeTable() { add("\"", '"')("\\", '\\')("n", '\n')("t", '\t'); }
};
const EscapeTable escape_table;

const auto ident = x3::char_("A-Za-z_") >> *x3::char_("A-Za-z0-9_");
const auto ident_after_dot = x3::rule<struct ident_after_dot_id>{"an identifier after '.'"} = ident;
const auto key = x3::rule<struct key_id, boost::iterator_range<const char*>>{
    "a key such as outcome, preferred_label or context.NAME"} = x3::raw[x3::lexeme[ident >> *('.' > ident_after_dot)]];

const auto escape_char = x3::rule<struct escape_char_id, char>{"\\\", \\\\, \\n or \\t after '\\'"} = escape_table;
const auto closing_quote = x3::rule<struct closing_quote_id>{"closing quote"} = x3::lit('"');
const auto quoted = x3::rule<struct quoted_id, std::string>{
    "string"} = x3::lexeme['"' >> *(('\\' > escape_char) | ~x3::char_("\"\\")) > closing_quote];
const auto bare = x3::rule<struct bare_id, std::string>{
    "literal"} = x3::raw[x3::lexeme[-x3::lit('-') >> x3::char_("A-Za-z0-9_") >> *x3::char_("A-Za-z0-9_.:-")]];
const auto literal = quoted | bare;

const auto value_after_ne = x3::rule<struct value_ne_id, std::string>{"a value after '!='"} = literal;
const auto value_after_eqeq = x3::rule<struct value_eqeq_id, std::string>{"a value after '=='"} = literal;
const auto value_after_eq = x3::rule<struct value_eq_id, std::string>{"a value after '='"} = literal;

const auto clause = key[on_key] >> -((x3::lit("!=") > value_after_ne)[SetOperator<Op::kNotEquals>{}] |
                                     (x3::lit("==") > value_after_eqeq)[SetOperator<Op::kEquals>{}] |
                                     (x3::lit('=') > value_after_eq)[SetOperator<Op::kEquals>{}]);
const auto clause_after_and = x3::rule<struct clause_after_and_id>{"a clause after '&&'"} = clause;
const auto end_of_condition = x3::rule<struct end_id>{"'&&' or end of condition"} = x3::eoi;
const auto condition = x3::eoi | (clause >> *(x3::lit("&&") > clause_after_and) > end_of_condition);

ConditionError describe_failure(std::string_view text, std::size_t offset, const std::string& expected) {
  if (expected == "closing quote") return {"unterminated string in condition", unterminated_quote(text)};
  offset = skip_value_spaces(text, offset);
  std::string_view rest = text.substr(std::min(offset, text.size()));
  if (expected == "'&&' or end of condition") {
    if (rest.substr(0, 2) == "||") return {"'||' is not supported; use separate edges", offset};
    if (!rest.empty() && (rest[0] == '<' || rest[0] == '>')) {
      std::string op(rest.substr(0, rest.size() > 1 && rest[1] == '=' ? 2 : 1));
      return {"operator '" + op + "' is not supported; use '=' or '!='", offset};
    }
  }
  return {"expected " + expected, offset};
}

}  // namespace

ConditionParseResult parse_condition(std::string_view text) {
  ConditionParseResult result;
  ParseState state;
  state.base = text.data();
  const char* first = text.data();
  const char* last = text.data() + text.size();
  try {
    const auto parser = x3::with<state_tag>(std::ref(state))[condition];
    if (x3::phrase_parse(first, last, parser, ascii_space) && first == last) {
      result.condition = std::move(state.condition);
      return result;
    }
    std::size_t offset = skip_value_spaces(text, static_cast<std::size_t>(first - text.data()));
    result.error = ConditionError{"expected a key such as outcome, preferred_label or context.NAME", offset};
    if (text.substr(offset, 2) == "||") result.error->message = "'||' is not supported; use separate edges";
  } catch (const x3::expectation_failure<const char*>& failure) {
    result.error = describe_failure(text, static_cast<std::size_t>(failure.where() - text.data()), failure.which());
  }
  return result;
}

void parse_edge_conditions(Graph& graph) {
  // Edges with the same text share one parse (a pipeline repeats `outcome=success` a lot).
  std::unordered_map<std::string_view, std::shared_ptr<const EdgeCondition>> parsed;
  for (Edge e : graph.edges()) {
    EdgeData& edge = graph.edge(e);
    auto value = edge.find("condition");
    if (!value) {
      edge.parsed_condition.reset();
      continue;
    }
    std::shared_ptr<const EdgeCondition>& shared = parsed[value->text()];
    if (!shared) {
      auto made = std::make_shared<EdgeCondition>();
      made->text = std::string(value->text());
      std::string_view text = made->text;
      const std::size_t first = text.find_first_not_of(" \t\n\r\f\v");
      text = first == std::string_view::npos ? std::string_view() : text.substr(first);
      text = text.substr(0, text.find_last_not_of(" \t\n\r\f\v") + 1);
      made->condition = parse_condition(text).condition;
      shared = std::move(made);
    }
    edge.parsed_condition = shared;
  }
}

}  // namespace attractor
