#include "retrieval/local/rrf.h"

#include <algorithm>
#include <climits>
#include <map>

namespace attractor::retrieval {

std::vector<SearchHit> fuse_rrf(const std::vector<SearchHit>& semantic, const std::vector<SearchHit>& bm25, int rrf_k,
                                int top_k) {
  struct Entry {
    double score = 0;
    int semantic_rank = INT_MAX;
    int bm25_rank = INT_MAX;
  };
  std::map<std::string, Entry> entries;
  for (const auto& h : semantic) {
    auto& e = entries[h.id];
    e.semantic_rank = std::min(e.semantic_rank, h.rank);
  }
  for (const auto& h : bm25) {
    auto& e = entries[h.id];
    e.bm25_rank = std::min(e.bm25_rank, h.rank);
  }
  for (auto& [id, e] : entries) {
    if (e.semantic_rank != INT_MAX) e.score += 1.0 / (rrf_k + e.semantic_rank);
    if (e.bm25_rank != INT_MAX) e.score += 1.0 / (rrf_k + e.bm25_rank);
  }
  std::vector<std::pair<std::string, Entry>> ranked(entries.begin(), entries.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second.score != b.second.score) return a.second.score > b.second.score;
    if (a.second.semantic_rank != b.second.semantic_rank) return a.second.semantic_rank < b.second.semantic_rank;
    if (a.second.bm25_rank != b.second.bm25_rank) return a.second.bm25_rank < b.second.bm25_rank;
    return a.first < b.first;
  });
  std::vector<SearchHit> out;
  for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < top_k; ++i) {
    out.push_back({ranked[i].first, ranked[i].second.score, static_cast<int>(i) + 1});
  }
  return out;
}

}  // namespace attractor::retrieval
