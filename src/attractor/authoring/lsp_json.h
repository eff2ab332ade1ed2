#pragma once
/// \file
/// The language service's answers as LSP JSON: ranges, diagnostics (with their quick fixes),
/// completion lists and hovers. The language server and the web editor's API (docs/server.md,
/// "The pipeline editor") both answer with these, so an editor gets the same objects either way.

#include <string>

#include <nlohmann/json.hpp>

#include "attractor/authoring/pipeline_document.h"
#include "attractor/authoring/text_lines.h"
#include "attractor/model/diagnostic.h"

namespace attractor {

/// The LSP DiagnosticSeverity of `severity`: 1 error, 2 warning, 3 information.
int lsp_severity(Severity severity);

/// An LSP Range of `range` in `doc`.
nlohmann::json lsp_range(const PipelineDocument& doc, ByteRange range, PositionEncoding encoding);

/// The byte offset of an LSP Position (`{"line", "character"}`); throws nlohmann::json::exception
/// when it has not that shape.
std::size_t lsp_offset(const PipelineDocument& doc, const nlohmann::json& position, PositionEncoding encoding);

/// The Diagnostic objects of `doc`; related locations name `uri`. With `quick_fixes`, each one
/// that has a fix carries `quickFix: {title, range, newText, edits}` (the web editor's extension:
/// `edits` holds every edit, `range` and `newText` repeat the first).
nlohmann::json lsp_diagnostics(const PipelineDocument& doc, PositionEncoding encoding, const std::string& uri,
                               bool quick_fixes = false);

/// A CompletionList at `offset`.
nlohmann::json lsp_completion(const PipelineDocument& doc, std::size_t offset, PositionEncoding encoding);

/// A Hover at `offset`, or null.
nlohmann::json lsp_hover(const PipelineDocument& doc, std::size_t offset, PositionEncoding encoding);

}  // namespace attractor
