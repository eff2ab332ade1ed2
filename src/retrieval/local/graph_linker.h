#pragma once
/// \file
/// Resolves the facts recorded by the extractors into the edges of the unified graph
/// (see edge_types.h). Runs over every node of a scope after each indexing run, so edges into
/// changed files are always current. Deterministic: output sorted by (from, type, to).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "retrieval/backend.h"
#include "retrieval/local/canonical_sql.h"
#include "retrieval/local/index_store.h"

namespace attractor::retrieval {

/// Edges between `nodes` (only edges whose both ends are in `nodes`).
std::vector<GraphEdge> link_graph(const std::vector<StoredNode>& nodes);
/// The same with the canonical SQL nodes already chosen (`choose_canonical_sql(nodes)`) and the
/// `global using` namespaces of files that may hold no node, by project (IndexStore::global_usings).
/// A global using imports only for the nodes whose `project` fact is the same.
std::vector<GraphEdge> link_graph(const std::vector<StoredNode>& nodes, CanonicalSql canonical,
                                  const std::map<std::string, std::set<std::string>>& global_usings = {});

}  // namespace attractor::retrieval
