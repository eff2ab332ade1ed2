#include "parser/stylesheet.h"

#include "parser/ascii_space.h"
#include "parser/value_text.h"

#include <array>

#include <boost/spirit/home/x3.hpp>

/// \file
/// The model stylesheet grammar (spec §8.2) as a Spirit X3 parser. Decisions where the spec is
/// silent: class names may also contain `_` and upper-case letters (explicit `class` attributes are
/// free text, matching is exact), `{}` with no declarations is accepted, bare values may contain
/// letters, digits and `_ . - : / @ +`, and quoted values accept the escapes `\"` and `\\`.

namespace attractor {

int StyleSelector::specificity() const {
  switch (kind) {
    case Kind::kUniversal: return 0;
    case Kind::kShape: return 1;
    case Kind::kClass: return 2;
    case Kind::kId: return 3;
  }
  return 0;
}

namespace {

namespace x3 = boost::spirit::x3;

/// The grammar's names, apart from the condition grammar's (the two may share a unity batch).
namespace css {

using Range = boost::iterator_range<const char*>;

struct ParseState {
  const char* base = nullptr;
  Stylesheet sheet;
};
struct state_tag;

/// Thrown from semantic actions for errors the grammar itself cannot express.
struct SemanticFailure {
  std::string message;
  std::size_t offset;
};

constexpr std::array<std::string_view, 3> kProperties = {"llm_model", "llm_provider", "reasoning_effort"};

template <StyleSelector::Kind kKind>
struct OnSelector {
  template <typename Context>
  void operator()(Context& ctx) const {
    ParseState& state = x3::get<state_tag>(ctx).get();
    const Range& range = x3::_attr(ctx);
    StyleRule rule;
    rule.selector.kind = kKind;
    rule.offset = static_cast<std::size_t>(range.begin() - state.base);
    std::size_t skip = (kKind == StyleSelector::Kind::kClass || kKind == StyleSelector::Kind::kId) ? 1 : 0;
    if (kKind != StyleSelector::Kind::kUniversal) rule.selector.name.assign(range.begin() + skip, range.end());
    state.sheet.rules.push_back(std::move(rule));
  }
};

const auto on_property = [](auto& ctx) {
  ParseState& state = x3::get<state_tag>(ctx).get();
  const Range& range = x3::_attr(ctx);
  StyleDeclaration declaration;
  declaration.property.assign(range.begin(), range.end());
  declaration.offset = static_cast<std::size_t>(range.begin() - state.base);
  bool known = false;
  for (std::string_view p : kProperties) known = known || p == declaration.property;
  if (!known) {
    throw SemanticFailure{
        "unknown property '" + declaration.property + "'; expected llm_model, llm_provider or reasoning_effort",
        declaration.offset};
  }
  state.sheet.rules.back().declarations.push_back(std::move(declaration));
};

const auto on_value = [](auto& ctx) {
  ParseState& state = x3::get<state_tag>(ctx).get();
  const Range& range = x3::_attr(ctx);
  std::string value;
  if (!range.empty() && *range.begin() == '"') {
    for (const char* p = range.begin() + 1; p + 1 < range.end(); ++p) {
      if (*p == '\\') ++p;
      value += *p;
    }
  } else {
    value.assign(range.begin(), range.end());
  }
  state.sheet.rules.back().declarations.back().value = std::move(value);
};

const auto ident = x3::char_("A-Za-z_") >> *x3::char_("A-Za-z0-9_");
const auto id_name = x3::rule<struct id_name_id>{"a node id after '#'"} = ident;
const auto class_name = x3::rule<struct class_name_id>{"a class name after '.'"} = +x3::char_("A-Za-z0-9_-");

const auto universal = x3::raw[x3::lit('*')][OnSelector<StyleSelector::Kind::kUniversal>{}];
const auto by_id = x3::raw[x3::lexeme['#' > id_name]][OnSelector<StyleSelector::Kind::kId>{}];
const auto by_class = x3::raw[x3::lexeme['.' > class_name]][OnSelector<StyleSelector::Kind::kClass>{}];
const auto by_shape = x3::raw[x3::lexeme[ident]][OnSelector<StyleSelector::Kind::kShape>{}];
const auto selector = universal | by_id | by_class | by_shape;

const auto closing_quote = x3::rule<struct closing_quote_id>{"closing quote"} = x3::lit('"');
const auto quoted = x3::lexeme['"' >> *(('\\' >> x3::char_) | ~x3::char_("\"\\")) > closing_quote];
const auto bare = x3::lexeme[+x3::char_("A-Za-z0-9_.:/@+-")];
const auto value = x3::rule<struct value_id>{"a value after ':'"} = x3::raw[quoted | bare][on_value];

const auto property = x3::rule<struct property_id, Range>{"property"} = x3::raw[x3::lexeme[ident]];
const auto colon = x3::rule<struct colon_id>{"':' after the property name"} = x3::lit(':');
const auto declaration = property[on_property] > colon > value;

const auto close_brace = x3::rule<struct close_brace_id>{"';' or '}'"} = x3::lit('}');
const auto body_start =
    x3::rule<struct body_start_id>{"a property (llm_model, llm_provider or reasoning_effort) or '}'"} =
        x3::lit('}') | (declaration >> *(';' >> declaration) >> -x3::lit(';') > close_brace);
const auto open_brace = x3::rule<struct open_brace_id>{"'{' after the selector"} = x3::lit('{');
const auto style_rule = selector > open_brace > body_start;
const auto end_of_sheet = x3::rule<struct end_id>{"a selector ('*', a shape name, '#id' or '.class')"} = x3::eoi;
const auto stylesheet = *style_rule > end_of_sheet;

StylesheetError describe_failure(std::string_view text, std::size_t offset, const std::string& expected) {
  if (expected == "closing quote") return {"unterminated string in stylesheet", unterminated_quote(text)};
  offset = skip_value_spaces(text, offset);
  if (expected == "';' or '}'") {
    std::size_t back = offset;
    while (back > 0 && is_value_space(text[back - 1])) --back;
    if (back > 0 && text[back - 1] == ';') {
      return {"expected a property (llm_model, llm_provider or reasoning_effort) or '}'", offset};
    }
  }
  return {"expected " + expected, offset};
}

}  // namespace css
}  // namespace

StylesheetParseResult parse_stylesheet(std::string_view text) {
  StylesheetParseResult result;
  css::ParseState state;
  state.base = text.data();
  const char* first = text.data();
  const char* last = text.data() + text.size();
  try {
    const auto parser = x3::with<css::state_tag>(std::ref(state))[css::stylesheet];
    if (x3::phrase_parse(first, last, parser, ascii_space) && first == last) {
      result.stylesheet = std::move(state.sheet);
      return result;
    }
    result.error = css::describe_failure(text, static_cast<std::size_t>(first - text.data()), "a selector");
  } catch (const x3::expectation_failure<const char*>& failure) {
    result.error = css::describe_failure(text, static_cast<std::size_t>(failure.where() - text.data()),
                                         failure.which());
  } catch (const css::SemanticFailure& failure) {
    result.error = StylesheetError{failure.message, failure.offset};
  }
  return result;
}

}  // namespace attractor
