#pragma once
/// \file
/// The synonyms a bm25 query is widened with (docs/retrieval.md section 4.1.1): each plain word the
/// query analysis kept, or a collocation of two adjacent plain words ("takes off"), is looked up in
/// a lexicon, and the synonyms that occur in the index are searched beside the query's own words at
/// a lower weight (LocalBackend::bm25_hits). Identifiers the user typed are never expanded.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "retrieval/local/query_analysis.h"
#include "retrieval/local/wordnet.h"

namespace attractor::retrieval {

/// What expand_query found.
struct QueryExpansion {
  /// For each expanded query word or collocation (as the query spells it, "quits", "takes off"):
  /// its synonyms that occur in the index, sorted, `_` between a collocation's words.
  std::map<std::string, std::vector<std::string>> synonyms;

  /// For each expanded word, in the order of `synonyms`, the FTS5 MATCH expression of each of its
  /// synonyms: one quoted phrase (`"leave"`, `"step down"`).
  std::vector<std::vector<std::string>> match_groups() const;
};

/// How many nodes of the index match an FTS5 phrase (an unquoted term such as "leave" or
/// "step down"); may stop counting at some bound.
using PhraseCount = std::function<int64_t(const std::string& phrase)>;

/// How many synonyms are kept per query word or collocation, the first found in the lexicon's order.
constexpr size_t kMaxSynonymsPerWord = 5;

/// A query word (or collocation) is expanded only when at most one node in kRareWordShare holds
/// it (none, in an index of fewer nodes): a word the code already uses finds its nodes itself, and
/// its synonyms mostly add noise (docs/decisions.md).
constexpr int64_t kRareWordShare = 1000;

/// The weight of a synonym's bm25 score next to the query's own words (LocalBackend::bm25_list):
/// a node scores, for each expanded word, this share of its best score for one of the synonyms.
constexpr double kSynonymWeight = 0.3;

/// A query that keeps more words (search_text) is not expanded: a long question already says
/// enough for bm25, and a synonym of one of its words mostly reorders what its other words found.
constexpr size_t kMaxWordsToExpand = 8;

/// Shorter words are never expanded alone (the "s" of "buyer's", "id").
constexpr size_t kMinWordLength = 3;

/// The synonyms of `analysis`'s kept plain words from `lexicon`, when it kept at most
/// kMaxWordsToExpand words. A pair of adjacent plain words whose
/// first was kept is tried as a collocation first; when the lexicon knows it, the pair stands for
/// both words. A word (of at least kMinWordLength letters) or collocation is expanded when `count`
/// finds it in at most `index_nodes` / kRareWordShare nodes, and a synonym is kept when `count`
/// finds it at all.
/// Deterministic for a deterministic lexicon.
QueryExpansion expand_query(const QueryAnalysis& analysis, ILexicon& lexicon, const PhraseCount& count,
                            int64_t index_nodes);

}  // namespace attractor::retrieval
