#pragma once
/// \file
/// Parses a DOT pipeline (spec §2) into a Graph. Two steps: the Spirit X3 grammar produces a plain
/// AST (dot_ast.h), then the builder applies default blocks, subgraph scoping, class derivation and
/// chained-edge expansion to produce the Boost.Graph model.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attractor/diagnostic.h"
#include "attractor/graph.h"
#include "attractor/source_file.h"

namespace attractor {

/// Resource limits; exceeding one is an error with its own rule, never a crash.
struct ParseLimits {
  std::size_t max_file_bytes = 64u << 20;     ///< whole file
  std::size_t max_value_bytes = 4u << 20;     ///< one attribute value
  int max_subgraph_depth = 100;               ///< nesting of subgraph blocks
};

/// The outcome of parsing: a graph when there were no errors, plus every diagnostic (errors stop
/// at the first syntax error; warnings such as duplicate attribute keys accumulate).
struct ParseResult {
  std::optional<Graph> graph;
  std::vector<Diagnostic> diagnostics;
  SourceFilePtr source;

  bool ok() const { return graph.has_value(); }
};

/// Parses DOT text held by `source`. Diagnostics carry line and column within it.
ParseResult parse_dot(SourceFilePtr source, const ParseLimits& limits = {});

/// Reads and parses a file. An unreadable file yields a diagnostic with rule "io".
ParseResult parse_dot_file(const std::string& path, const ParseLimits& limits = {});

}  // namespace attractor
