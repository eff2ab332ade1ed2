#pragma once
/// \file
/// `search_nodes` (docs/retrieval.md): the retrieval step. Resets the retrieval, graph and text keys,
/// validates its configuration fail-fast, turns `last_model_response` into a query (plain text or
/// `query_parser="jsonish_v1"`), merges payload filters under the sacred base filters, performs
/// exactly one backend search and writes `retrieval_seed_nodes`, `retrieval_hits` and
/// `last_search_bm25_operator`.

#include <memory>
#include <string>
#include <vector>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/rag/retrieval_support.h"

namespace attractor {

/// Context keys `search_nodes` resets before anything else (docs/retrieval.md), with their empty
/// values; `node_texts` is reset only when present.
const std::vector<std::pair<std::string, nlohmann::json>>& search_nodes_cleanup_keys();

/// The `search_nodes` handler. Node attributes: `search_type` (required), `top_k` (else graph
/// `top_k`), `rrf_k`, `rerank`, `query_parser`, `snapshot_source`, `allow_top_k_from_payload`,
/// `allow_rrf_k_from_payload`, `on_ok`/`next` (routing).
class SearchNodesHandler : public Handler {
 public:
  /// `widen_factor` (>= 1, else std::invalid_argument): semantic candidates per result for reranking.
  explicit SearchNodesHandler(std::shared_ptr<RetrievalBackendProvider> provider, int widen_factor = 6);
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;

 private:
  std::shared_ptr<RetrievalBackendProvider> provider_;
  int widen_factor_;
};

/// `on_ok` if set, else `next`; empty when neither (routing then follows the edges).
std::vector<std::string> retrieval_next_ids(const NodeData& node);

/// The description of the `search_nodes` handler type (registry, lint, engine and reference read it).
const HandlerDescription& search_nodes_description();

}  // namespace attractor
