#pragma once
/// \file
/// `render_context_blocks` (docs/retrieval.md): turns the structured `node_texts` written by
/// `fetch_node_texts` into LLM-ready strings appended to `context_blocks` (one block per node text,
/// in order). `node_texts` is left as it is; a missing `node_texts` counts as empty.
///
/// Attribute `layout`: `flat` (default) or `tree`; optional `next` names the node to route to.
/// - flat: "--- <id> ---", then "path: <path>" and "language: <language>" when present, then the
///   text.
/// - tree: an indented view of at most 3 levels built from `parent_id`: a node whose parent is
///   among the node texts is shown under it (depth-first, siblings in `node_texts` order); other
///   nodes (seeds, or nodes whose parent was not fetched) are roots. Level n is indented by 2n
///   spaces; descendants below the third level are shown at the third level, right after their
///   nearest shown ancestor. Each block is "<indent>- <id>" plus " (<path>)" when present, then
///   the text lines indented by two more spaces (blank lines stay empty).
/// Every item needs a string `id` (or `node_id`) and a string `text`; anything else fails.

#include <string>

#include <nlohmann/json.hpp>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class RenderContextBlocksHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
};

/// The blocks for `node_texts` in `layout` ("flat" or "tree"); throws std::invalid_argument
/// naming the offending item.
nlohmann::json render_context_blocks(const nlohmann::json& node_texts, const std::string& layout);

/// The description of the `render_context_blocks` handler type (registry, lint, engine and reference read it).
const HandlerDescription& render_context_blocks_description();

}  // namespace attractor
