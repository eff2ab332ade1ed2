#pragma once
/// \file
/// Reciprocal Rank Fusion as docs/retrieval.md specifies for `hybrid`.

#include <vector>

#include "retrieval/backend.h"

namespace attractor::retrieval {

/// Fuses a semantic and a bm25 ranking: score(id) = sum over the lists containing id of
/// 1 / (rrf_k + rank), ranks 1-based as given in the hits. Sorted by score descending, then lower
/// semantic rank, then lower bm25 rank (an id missing from a list ranks after all present ones),
/// then id ascending; cut to `top_k` and re-ranked 1..n.
std::vector<SearchHit> fuse_rrf(const std::vector<SearchHit>& semantic, const std::vector<SearchHit>& bm25, int rrf_k,
                                int top_k);

}  // namespace attractor::retrieval
