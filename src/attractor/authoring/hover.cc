#include "attractor/authoring/hover.h"

#include "attractor/authoring/attribute_lookup.h"
#include "attractor/authoring/cursor_context.h"
#include "attractor/authoring/node_references.h"
#include "attractor/model/fidelity.h"

namespace attractor {

namespace {

std::string attribute_markdown(const FoundAttribute& f) {
  std::string out = "**`" + f.spec->name + "`** (" + f.owner + " attribute): " + attribute_detail(*f.spec) + "\n\n";
  out += f.spec->meaning;
  return out;
}

std::string node_markdown(const PipelineDocument& doc, const std::string& id) {
  std::string out = "**node `" + id + "`**";
  const LoadedPipeline& loaded = doc.loaded();
  if (!loaded.graph) return out + "\n\n(the file does not parse yet)";
  const Graph& graph = *loaded.graph;
  const NodeData* node = graph.node(id);
  if (!node) return out;
  const HandlerCatalog& handlers = *doc.catalog().handlers;
  out += "\n\n| | |\n|---|---|\n";
  out += "| handler | `" + handlers.type_of(*node) + "` |\n";
  out += "| shape | `" + node->shape() + "` |\n";
  if (node->label() != id) out += "| label | " + node->label() + " |\n";
  out += "| fidelity | `" + node_fallback_fidelity(*node, graph) + "` |\n";
  std::string thread = resolve_thread_id(nullptr, *node, graph, "");
  if (!thread.empty()) out += "| thread | `" + thread + "` |\n";
  if (!node->llm_model().empty()) out += "| model | `" + node->llm_model() + "` |\n";
  if (!node->llm_provider().empty()) out += "| provider | `" + node->llm_provider() + "` |\n";
  return out;
}

/// The key token of an attribute whose name or value holds `t`, or kNoToken.
TokenIndex key_of(const SyntaxTree& tree, TokenIndex t) {
  const auto& tokens = tree.tokens;
  if (t + 1 < tokens.size() && tokens[t + 1].kind == SyntaxKind::kEquals) return t;
  if (t >= 2 && tokens[t - 1].kind == SyntaxKind::kEquals) return t - 2;
  return kNoToken;
}

}  // namespace

std::optional<HoverText> hover_at(const PipelineDocument& doc, std::size_t offset) {
  if (std::optional<NodeReference> ref = node_reference_at(doc, offset)) {
    return HoverText{node_markdown(doc, ref->id), ref->range};
  }
  TokenIndex t = doc.token_at(offset);
  if (t == kNoToken) return std::nullopt;
  TokenIndex key = key_of(doc.syntax(), t);
  if (key == kNoToken) return std::nullopt;
  std::optional<std::string_view> name = plain_token_text(doc.syntax(), key);
  if (!name) return std::nullopt;
  CursorContext ctx = cursor_context(doc, doc.syntax().tokens[key].begin);
  if (ctx.where != CursorContext::Where::kAttributeName) ctx.scope = AttributeScope::kGraph;
  FoundAttribute f = find_attribute_for(ctx.scope, ctx.node_type, *name, *doc.catalog().handlers);
  if (!f.spec) return std::nullopt;
  return HoverText{attribute_markdown(f), doc.range_of(t)};
}

}  // namespace attractor
