#pragma once
/// \file
/// The candidate order of `fetch_node_texts` (docs/retrieval.md): seeds in retrieval rank order,
/// graph-only nodes with `depth` / `parent_id` from a breadth-first tree over `graph_edges`, and
/// the three prioritization modes.
///
/// The tree: roots are the seeds in rank order (depth 0); edges are followed in both directions
/// (expansion may have walked an edge backwards) and only through candidate nodes; neighbours are
/// visited in id order, so the first seed (in rank order) to reach a node at the smallest depth
/// becomes its ancestor. A graph-only node the tree does not reach gets depth 1, no parent and
/// no owning seed.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/backend.h"

namespace attractor {

/// How candidates are ordered before the budget walk.
enum class PrioritizationMode {
  kSeedFirst,   ///< all seeds, then graph-only nodes by (depth, id)
  kGraphFirst,  ///< each seed followed by its own subtree by (depth, id); unowned nodes last
  kBalanced,    ///< seed[0], graph[0], seed[1], graph[1], ...; the rest of the longer list at the end
};

/// Parses "seed_first" | "graph_first" | "balanced"; nullopt otherwise.
std::optional<PrioritizationMode> parse_prioritization_mode(std::string_view text);
/// The mode's name.
std::string_view to_string(PrioritizationMode mode);

/// One candidate node for materialization.
struct EvidenceCandidate {
  std::string id;
  bool is_seed = false;
  int depth = 0;                         ///< 0 for seeds, >= 1 for graph-only nodes
  std::optional<std::string> parent_id;  ///< nullopt for seeds and unreached graph-only nodes
  bool operator==(const EvidenceCandidate&) const = default;
};

/// Orders the candidates. `seeds` are in rank order; `expanded` may contain the seeds too (they
/// stay seeds). Duplicates are dropped, keeping the first occurrence.
std::vector<EvidenceCandidate> order_candidates(const std::vector<std::string>& seeds,
                                                const std::vector<std::string>& expanded,
                                                const std::vector<retrieval::GraphEdge>& edges,
                                                PrioritizationMode mode);

}  // namespace attractor
