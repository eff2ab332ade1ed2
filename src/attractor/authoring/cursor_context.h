#pragma once
/// \file
/// What the text around a cursor is: the start of a statement, an edge's target, an attribute's
/// name or value (and of which statement), or the inside of a condition. Completion and hover
/// read it (docs/authoring.md, "Language server").

#include <string>

#include "attractor/authoring/pipeline_document.h"

namespace attractor {

/// Which attribute table a statement's attributes come from.
enum class AttributeScope { kNode, kEdge, kGraph };

/// The cursor's surroundings.
struct CursorContext {
  enum class Where { kNone, kStatementStart, kEdgeTarget, kAttributeName, kAttributeValue, kCondition };
  Where where = Where::kNone;
  AttributeScope scope = AttributeScope::kNode;
  bool defaults = false;         ///< inside `node [...]`, `edge [...]` or `graph [...]`
  bool in_subgraph = false;      ///< the statement is inside a subgraph's braces
  std::string key;               ///< the attribute whose value the cursor is in
  std::string node_id;           ///< the node of a node statement ("" otherwise)
  std::string node_type;         ///< that node's `type`, else the type its `shape` selects, else ""
  ByteRange replace;             ///< the partly typed word a completion replaces
  std::string prefix;            ///< its text up to the cursor
  std::string condition_before;  ///< in a condition: the text of the clause before the word
};

/// The context of byte `offset` in `doc`.
CursorContext cursor_context(const PipelineDocument& doc, std::size_t offset);

}  // namespace attractor
