#pragma once
/// \file
/// The web editor's endpoints (docs/server.md, "The pipeline editor"): open and save a graph of
/// `--graphs-dir`, and the language service of `attractor lsp` over HTTP (diagnostics with quick
/// fixes, completion, hover, formatting) plus a Graphviz preview. Positions are LSP positions in
/// UTF-16 code units, which are a browser string's indices.

#include <string>

#include <nlohmann/json.hpp>

#include "attractor/authoring/pipeline_document.h"
#include "attractor/authoring/text_lines.h"
#include "attractor/launch/graphviz.h"
#include "attractor/server/run_registry.h"
#include "attractor/server/run_views.h"

namespace attractor {

/// The largest source the editor endpoints read or save.
inline constexpr std::size_t kMaxEditorSourceBytes = 1 << 20;

class EditorApi {
 public:
  /// `catalog.handlers` null means the built-in handler catalog.
  EditorApi(std::string graphs_dir, AuthoringCatalog catalog);

  /// `GET /editor/graph?path=P`: `{"path", "dot"}`.
  ApiReply open(const std::string& path) const;
  /// `POST /editor/graph` `{"path", "dot"}`: writes the file atomically; `{"path", "bytes"}`.
  ApiReply save(const nlohmann::json& body) const;
  /// `POST /editor/diagnostics` `{"dot"}`: `{"diagnostics": [...]}`.
  ApiReply diagnostics(const nlohmann::json& body) const;
  /// `POST /editor/completion` `{"dot", "line", "character"}`: an LSP CompletionList.
  ApiReply completion(const nlohmann::json& body) const;
  /// `POST /editor/hover` `{"dot", "line", "character"}`: an LSP Hover or null.
  ApiReply hover(const nlohmann::json& body) const;
  /// `POST /editor/format` `{"dot"}`: `{"dot": FORMATTED}`, or 400 with the diagnostics.
  ApiReply format(const nlohmann::json& body) const;
  /// `POST /editor/preview` `{"dot"}`: the pipeline drawn by Graphviz (as `attractor render`).
  SvgResult preview(const nlohmann::json& body, GraphvizRenderer& renderer) const;

 private:
  using PositionAnswer = nlohmann::json (*)(const PipelineDocument&, std::size_t, PositionEncoding);
  /// `answer` at the body's `line` and `character` in its `dot`, or the 400 reply.
  ApiReply at_position(const nlohmann::json& body, PositionAnswer answer) const;
  /// The `dot` of a body, or the 400/413 reply in `error`.
  std::optional<std::string> source(const nlohmann::json& body, ApiReply& error) const;

  std::string graphs_dir_;
  AuthoringCatalog catalog_;
};

}  // namespace attractor
