#pragma once
/// \file
/// The edge condition language (spec §10): `Clause ( '&&' Clause )*` where a clause is
/// `Key = Literal`, `Key != Literal` or a bare key (truthiness). Parsed by its own X3 grammar into
/// the AST of attractor/model/edge_condition.h, which the engine evaluates with a key resolver.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "attractor/model/edge_condition.h"
#include "attractor/model/graph.h"

namespace attractor {

/// Where and why a condition failed to parse.
struct ConditionError {
  std::string message;     ///< says what was expected, e.g. "expected a literal after '='"
  std::size_t offset = 0;  ///< byte offset in the condition text
};

struct ConditionParseResult {
  std::optional<Condition> condition;
  std::optional<ConditionError> error;
  bool ok() const { return condition.has_value(); }
};

/// Parses condition text (already unescaped from its DOT string). Beyond §10.2 it accepts bare keys
/// (`ready`, looked up in the context), `==` as a spelling of `=` (graphs/fidelity.dot writes it), and literals
/// that start with a digit or `-` (`-3`, `0.5`); quoted literals take the escapes \" \\ \n \t.
/// Whitespace-only text is the empty (always true) condition.
ConditionParseResult parse_condition(std::string_view text);

/// Parses the `condition` of every edge of `graph` and keeps it on the edge
/// (EdgeData::parsed_condition), so a run evaluates conditions without parsing them again; an
/// edge without one gets none. The pipeline loader calls it after the transforms.
void parse_edge_conditions(Graph& graph);

}  // namespace attractor
