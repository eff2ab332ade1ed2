#pragma once
/// \file
/// The outline of a pipeline for an editor: document symbols (the graph, its subgraphs and the
/// nodes declared in each) and folding ranges (braces, multi-line attribute lists and comments).

#include <string>
#include <vector>

#include "attractor/authoring/pipeline_document.h"

namespace attractor {

/// A symbol; `kind` uses the LSP SymbolKind numbers.
struct OutlineSymbol {
  enum Kind { kModule = 2, kNamespace = 3, kFunction = 12 };
  std::string name;
  Kind kind = kFunction;
  std::string detail;   ///< a node's label or handler shape
  ByteRange range;      ///< the whole statement
  ByteRange selection;  ///< its name
  std::vector<OutlineSymbol> children;
};

/// The graph as one symbol holding its subgraphs and nodes, in text order; empty when the file
/// has no `digraph`.
std::vector<OutlineSymbol> document_symbols(const PipelineDocument& doc);

/// A foldable range of 0-based lines.
struct FoldingLines {
  std::size_t start_line = 0;
  std::size_t end_line = 0;
  bool comment = false;
  bool operator==(const FoldingLines&) const = default;
};

/// The folding ranges, sorted by start line.
std::vector<FoldingLines> folding_ranges(const PipelineDocument& doc);

}  // namespace attractor
