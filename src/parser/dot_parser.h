#pragma once
/// \file
/// Parses a DOT pipeline (spec §2) into a Graph. Two steps: the Spirit X3 grammar produces a plain
/// AST (dot_ast.h), then the builder applies default blocks, subgraph scoping, class derivation and
/// chained-edge expansion to produce the Boost.Graph model (dot_builder.h).
///
/// Accepted beyond the spec's grammar, because Graphviz accepts it and the meaning is clear:
/// attributes separated by ',', ';' or whitespace; several attribute lists (`a [x=1][y=2]`);
/// quoted node ids, keys and graph names whose content is an identifier (`"plan" -> "exit"`);
/// an optional graph name (`digraph { }` gives the name ""); anonymous `{ ... }` subgraphs;
/// case-insensitive keywords; `"a" + "b"` string concatenation; backslash-newline continuation in
/// strings; `#` lines (C preprocessor output); a UTF-8 byte order mark. Presentation attributes
/// (`rankdir`, `fontname`, ...) are ordinary attributes and kept verbatim.
///
/// Diagnostic rule ids (all errors stop at the first one, except the two warnings):
///   syntax               anything malformed: "expected X, found Y" names what was expected
///   undirected           `graph G {}` or an `--` edge
///   strict               `strict digraph`
///   multiple_graphs      a second graph after the first one
///   graph_id             a graph name that is not an identifier (it is part of run directory names)
///   html_label           an HTML-like value `<...>`
///   node_id              a node id that is not an identifier (ids become directory names)
///   bad_value            an unquoted value that starts like a number but is not an integer,
///                        float or duration (`12abc`, `1.`, `5x`)
///   unterminated_string  a string without its closing quote (points at the opening quote)
///   unterminated_comment a `/*` without `*/` (points at the `/*`)
///   nesting_depth        subgraphs nested deeper than ParseLimits::max_subgraph_depth
///   file_too_large       the file exceeds ParseLimits::max_file_bytes
///   value_too_large      one value exceeds ParseLimits::max_value_bytes
///   encoding             the file is not valid UTF-8
///   io                   the file cannot be read
///   duplicate_attribute  WARNING: a key repeated in one attribute list (the last one wins)
///   duplicate_node       WARNING: two node statements give one attribute different values

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attractor/model/diagnostic.h"
#include "attractor/model/graph.h"
#include "attractor/model/source_file.h"

namespace attractor {

/// Resource limits; exceeding one is an error with its own rule, never a crash.
struct ParseLimits {
  std::size_t max_file_bytes = 64u << 20;  ///< whole file
  std::size_t max_value_bytes = 4u << 20;  ///< one attribute value
  int max_subgraph_depth = 100;            ///< nesting of subgraph blocks
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
