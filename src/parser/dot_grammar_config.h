#pragma once
/// \file
/// The iterator and context types the DOT grammar is instantiated for.

#include <functional>

#include "parser/dot_grammar.h"

namespace attractor::dot {

using iterator_type = const char*;
using phrase_context_type = x3::phrase_parse_context<Skipper>::type;
using context_type = x3::context<state_tag, std::reference_wrapper<ParseState>, phrase_context_type>;

}  // namespace attractor::dot
