#pragma once
/// \file
/// Canonical DOT output: a deterministic, normalized rendering of a Graph that the parser reads
/// back to an equal graph. Golden tests compare it; `attractor render` builds on it.
///
/// Form: `digraph NAME {`, then `  graph [k="v", ...];` when the graph has attributes, then every
/// node in insertion order `  id [k="v", ...];`, then every edge in declaration order
/// `  a -> b [k="v", ...];`, then `}`. Keys are sorted; values are always quoted. Ids and keys
/// that are not plain identifiers (qualified keys, DOT keywords) are quoted too, so Graphviz reads
/// the output as well.

#include <string>
#include <string_view>

#include "attractor/model/graph.h"

namespace attractor {

/// The canonical DOT text of `graph`.
std::string write_dot(const Graph& graph);

/// `text` as a DOT string literal: surrounded by quotes, with `"` `\` and newline escaped as
/// `\"` `\\` `\n`.
std::string quote_dot_string(std::string_view text);

}  // namespace attractor
