#pragma once
/// \file
/// The diagnostics of `attractor validate` as an editor shows them: each with the range of the
/// token it points at, related locations (the node's declaration), and a quick fix for every
/// "did you mean" the linter knows (docs/authoring.md, "Language server").

#include <optional>
#include <string>
#include <vector>

#include "attractor/authoring/pipeline_document.h"
#include "attractor/model/diagnostic.h"

namespace attractor {

/// A location that explains a diagnostic.
struct RelatedLocation {
  ByteRange range;
  std::string message;
};

/// One diagnostic with its range and, when the linter suggested a replacement, the edit.
struct EditorDiagnostic {
  Diagnostic diagnostic;
  ByteRange range;
  std::vector<RelatedLocation> related;
  /// The edits of the quick fix, empty when there is none: one, or every mention of a node an
  /// edge misspelt.
  std::vector<TextEdit> quick_fix;
  std::string quick_fix_title;  ///< e.g. "Replace 'bx' with 'box'"
};

/// Every diagnostic of `doc` (parse, transforms, lint), per rule capped as `validate` caps them.
std::vector<EditorDiagnostic> editor_diagnostics(const PipelineDocument& doc);

}  // namespace attractor
