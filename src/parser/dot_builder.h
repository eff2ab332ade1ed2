#pragma once
/// \file
/// AST -> Graph: applies default blocks with subgraph scoping, derives classes from subgraph
/// labels, expands chained edges and records source locations (spec §2.9–2.12).
///
/// Semantics decided here:
/// - `node [..]` / `edge [..]` defaults apply to statements after them in the same scope and in
///   nested subgraphs; a subgraph copies its parent's defaults on entry and drops its own on exit.
/// - Node defaults apply when a node is created (by its first node statement or the first edge
///   that mentions it); a later node statement merges its attributes, the later value winning.
///   Two node statements giving one attribute different values produce a `duplicate_node` warning.
/// - A subgraph's label (`label = ".."` or `graph [label=..]` anywhere in its body, the last one
///   wins) derives a class (lowercase, spaces -> '-', other non-alphanumerics except '-' dropped).
///   Nodes created inside the subgraph, and nodes with a node statement inside it, get the class
///   after their own `class` entries; nested subgraphs add outer classes first, no duplicates.
/// - `graph [..]` and `key = value` set graph attributes at the top level only; inside a subgraph
///   they are subgraph attributes (only `label` is used, for the class).
/// - Duplicate keys in one attribute list are a `duplicate_attribute` warning; the last wins.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/model/diagnostic.h"
#include "attractor/model/graph.h"
#include "attractor/model/source_file.h"
#include "parser/dot_ast.h"

namespace attractor::dot {

/// Builds the graph one top-level statement at a time, as the parser produces them, so a
/// statement's AST can be freed as soon as it is applied. Tokens point into `source->text()`.
/// Warnings are appended to `diagnostics`.
class GraphBuilder {
 public:
  GraphBuilder(SourceFilePtr source, std::vector<Diagnostic>& diagnostics);
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  /// Applies the next top-level statement of the file.
  void add(const ast::Statement& statement);
  /// Names the graph, derives the subgraph classes and hands the graph over.
  Graph finish(const ast::GraphName& name);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// The class a subgraph label derives: "Loop A" -> "loop-a" ("" when nothing is left).
std::string derive_class(std::string_view label);

/// The value a token denotes: kind by syntax, quoted text unescaped, location of its first byte.
Value token_value(const ast::Token& token, const SourceFile& file);

}  // namespace attractor::dot
