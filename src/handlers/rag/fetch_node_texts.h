#pragma once
/// \file
/// `fetch_node_texts` (docs/retrieval.md): materializes the texts of the retrieved and expanded
/// node ids into context `node_texts` under one evidence budget, in a deterministic order.
///
/// Reads context `retrieval_seed_nodes` (rank order; `graph_seed_nodes` when it is empty or
/// absent), `graph_expanded_nodes` and `graph_edges` (both optional; lists of strings / objects
/// with `from_id`, `to_id`), and the retrieval scope (`read_retrieval_scope`: `repository`,
/// `branch`, `retrieval_filters`, snapshot, `active_index`). Node attributes:
/// - `prioritization_mode`: `seed_first` | `graph_first` | `balanced` (default); see evidence_order.h;
/// - the budget, exactly one of `max_chars` (Unicode characters), `budget_tokens`,
///   `budget_tokens_from_settings` (names a graph attribute), or none of them: the implicit token
///   budget `floor(0.70 * max_context_tokens)` from the graph attribute. `max_chars` with a token
///   budget, both token budgets, a missing or non-positive `max_context_tokens` in implicit mode
///   and any budget <= 0 are terminal errors naming the node and the field.
/// Tokens are counted with `token_counter_for_graph`. Snippets are atomic: a candidate whose text
/// does not fit in what is left is skipped and the walk continues to the end of the list.
/// Texts come from one `fetch_texts` call in the scope (ids the scope does not show are dropped),
/// path and language from one `describe` call for the selected ids. The id lists are not written.
///
/// Writes `node_texts` (items `id`, `node_id`, `text`, `is_seed`, `depth`, `parent_id`, `path`,
/// `language`) and merges into `graph_debug`: `reason` (`ok` or `no_nodes_for_fetch_node_texts`),
/// `prioritization_mode`, `seed_count`, `graph_expanded_count` (distinct ids of
/// `graph_expanded_nodes`, seeds included), `candidate_count`, `node_texts_count`,
/// `skipped_count` (over budget), `missing_count` (no text in the scope), `budget_tokens`,
/// `used_tokens`, `max_chars`, `used_chars` (the budget of the other kind is null; both used_*
/// are counted). With no ids at all: `node_texts = []` and reason `no_nodes_for_fetch_node_texts`,
/// without a backend call. Routes to `on_ok`, else `next`, when set. Emits `FETCH_NODE_TEXTS`.

#include <cstdint>
#include <memory>
#include <string>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/rag/retrieval_support.h"

namespace attractor {

class FetchNodeTextsHandler : public Handler {
 public:
  explicit FetchNodeTextsHandler(std::shared_ptr<RetrievalBackendProvider> provider) : provider_(std::move(provider)) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;

 private:
  std::shared_ptr<RetrievalBackendProvider> provider_;
};

/// The evidence budget of a `fetch_node_texts` node.
struct EvidenceBudget {
  bool chars = false;  ///< true: `limit` counts characters; false: tokens
  std::int64_t limit = 0;
  std::string source;  ///< "max_chars", "budget_tokens", "budget_tokens_from_settings" or "implicit"
};

/// Resolves the budget per the rules above; throws StageError (terminal) naming node and field.
EvidenceBudget resolve_evidence_budget(const NodeData& node, const Graph& graph);

/// Number of Unicode characters (UTF-8 lead bytes) of `text`.
std::size_t count_chars(std::string_view text);

/// The description of the `fetch_node_texts` handler type (registry, lint, engine and reference read it).
const HandlerDescription& fetch_node_texts_description();

}  // namespace attractor
