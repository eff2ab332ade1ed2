#pragma once
/// \file
/// One open pipeline as the editing tools see it: its text, the lossless syntax reading, the line
/// structure and, on first use, the same parse, transforms and lint as `attractor validate`
/// (docs/authoring.md). The language server keeps one per open file; the web editor's API builds
/// one per request.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/authoring/dot_syntax.h"
#include "attractor/authoring/text_lines.h"
#include "attractor/check/handler_catalog.h"
#include "attractor/check/pipeline_loader.h"

namespace attractor {

/// Byte offsets [begin, end) into a document's text.
struct ByteRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool operator==(const ByteRange&) const = default;
};

/// Replace `range` with `text`.
struct TextEdit {
  ByteRange range;
  std::string text;
  bool operator==(const TextEdit&) const = default;
};

/// What the editing tools know beyond one document: the handler types and the LLM provider names
/// (the CLI fills it from the built-in registries).
struct AuthoringCatalog {
  const HandlerCatalog* handlers = nullptr;
  std::vector<std::string> providers;
};

/// An open document. Immutable: an edit makes a new one.
class PipelineDocument {
 public:
  /// `path` names the file in diagnostics; `catalog` must outlive the document.
  PipelineDocument(std::string path, std::string text, const AuthoringCatalog& catalog);
  PipelineDocument(const PipelineDocument&) = delete;
  PipelineDocument& operator=(const PipelineDocument&) = delete;

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  const SyntaxTree& syntax() const { return syntax_; }
  const TextLines& lines() const { return lines_; }
  const AuthoringCatalog& catalog() const { return catalog_; }
  /// Parse, transforms and lint, computed on first use.
  const LoadedPipeline& loaded() const;

  /// The token whose [begin, end) holds `offset`, else the one ending at `offset`; kNoToken
  /// when `offset` is in whitespace after no token.
  TokenIndex token_at(std::size_t offset) const;
  /// Byte range of token `i`.
  ByteRange range_of(TokenIndex i) const { return {syntax_.tokens[i].begin, syntax_.tokens[i].end}; }

 private:
  std::string path_;
  std::string text_;
  const AuthoringCatalog& catalog_;
  SyntaxTree syntax_;
  TextLines lines_;
  mutable std::unique_ptr<LoadedPipeline> loaded_;
};

/// `text` with `edits` applied; edits must not overlap (any order).
std::string apply_edits(std::string_view text, std::vector<TextEdit> edits);

}  // namespace attractor
