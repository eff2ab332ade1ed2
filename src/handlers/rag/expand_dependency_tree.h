#pragma once
/// \file
/// `expand_dependency_tree` (docs/retrieval.md): breadth-first expansion of `retrieval_seed_nodes` over the
/// unified C# + SQL dependency graph through the retrieval backend, in the search's scope and ACL.
/// Writes `graph_seed_nodes`, `graph_expanded_nodes` (seeds first, then BFS order), `graph_edges`
/// (`from_id`, `to_id`, `edge_type`), `graph_nodes` (`id`, `depth`, `parent_id`: the BFS tree) and
/// `graph_debug` (`seed_count`, `expanded_count`, `edges_count`, `truncated`, `reason`, plus the
/// resolved `max_depth`, `max_nodes`, `edge_allowlist`).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/rag/retrieval_support.h"

namespace attractor {

/// Parses an edge allowlist setting: a JSON array of strings or a comma-separated list (entries
/// trimmed, empty ones dropped). Each entry is an edge type of edge_types.h, optionally prefixed
/// with `~` (follow backwards). Returns nullopt and sets `error` when invalid or empty.
std::optional<std::vector<std::string>> parse_edge_allowlist(std::string_view text, std::string* error);

/// The `expand_dependency_tree` handler. Node attributes `max_depth_from_settings`,
/// `max_nodes_from_settings`, `edge_allowlist_from_settings` (all required, each naming a graph
/// attribute that must exist), `snapshot_source`, `on_ok`/`next`.
class ExpandDependencyTreeHandler : public Handler {
 public:
  explicit ExpandDependencyTreeHandler(std::shared_ptr<RetrievalBackendProvider> provider)
      : provider_(std::move(provider)) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;

 private:
  std::shared_ptr<RetrievalBackendProvider> provider_;
};

/// The description of the `expand_dependency_tree` handler type (registry, lint, engine and reference read it).
const HandlerDescription& expand_dependency_tree_description();

}  // namespace attractor
