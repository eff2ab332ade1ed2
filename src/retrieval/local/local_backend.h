#pragma once
/// \file
/// The embedded local backend: SQLite FTS5 (bm25) + FAISS (semantic) + RRF (hybrid) over one index
/// directory written by the indexer. Not thread-safe: use one instance per thread.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "retrieval/backend.h"
#include "retrieval/local/embedder.h"
#include "retrieval/local/index_store.h"
#include "retrieval/local/query_analysis.h"
#include "retrieval/local/query_expansion.h"
#include "retrieval/local/vector_index.h"
#include "retrieval/local/wordnet.h"

namespace attractor::retrieval {

/// Options of the local backend.
struct LocalBackendOptions {
  /// The query embedder. nullopt: built from what the index recorded (lexical as recorded; openai
  /// with the recorded model and the endpoint/key from the environment). When given, it must match
  /// the recorded provider, model and dimension, otherwise semantic search fails.
  std::optional<EmbedderSpec> embedder;
  /// Opens the lexicon of bm25's synonym expansion, once, at the first bm25 search; nullptr means
  /// none (the search is not expanded and its debug says so). Default: WordNet from
  /// wordnet_system_dirs().
  std::function<std::unique_ptr<ILexicon>()> lexicon = [] { return WordNet::open_system(); };
};

class LocalBackend : public IRetrievalBackend {
 public:
  /// Opens `index_dir` read-only; throws RetrievalError(kUnavailable) when there is no index.
  explicit LocalBackend(const std::string& index_dir, LocalBackendOptions options = {});
  /// Uses an already constructed embedder for queries (tests, benchmarks).
  LocalBackend(const std::string& index_dir, std::unique_ptr<IEmbedder> embedder);

  SearchResponse search(const SearchRequest& request) override;
  std::map<std::string, std::string> fetch_texts(const std::vector<std::string>& ids, const std::string& repository,
                                                 const std::string& branch, const nlohmann::json& retrieval_filters,
                                                 const std::optional<std::string>& active_index) override;
  ExpandResult expand(const ExpandRequest& request) override;
  std::vector<NodeInfo> describe(const std::vector<std::string>& ids, const std::string& repository,
                                 const std::string& branch, const nlohmann::json& retrieval_filters,
                                 const std::optional<std::string>& active_index) override;

 private:
  Scope scope_for(const std::string& repository, const std::string& branch, const NodeFilter& filter,
                  const std::optional<std::string>& active_index);
  IEmbedder& query_embedder(const std::string& index_name);
  const VectorIndex& vectors(const std::string& index_name);
  /// Ranked semantic hits (search for semantic and hybrid): the named kinds first, then roles
  /// (prefer_roles).
  std::vector<SearchHit> semantic_hits(const Scope& scope, const NodeFilter& filter, const std::string& query,
                                       const QueryAnalysis& analysis, int top_k);
  /// One semantic candidate list under `filter`, best first.
  std::vector<SearchHit> semantic_list(const Scope& scope, const NodeFilter& filter, const std::string& text,
                                       int candidates);
  /// Ranked bm25 hits, as semantic_hits, of the query's words and `expansion`'s synonyms.
  std::vector<SearchHit> bm25_hits(const Scope& scope, const NodeFilter& filter, const std::string& query,
                                   const QueryAnalysis& analysis, const QueryExpansion& expansion, int top_k,
                                   MatchOperator op);
  /// One bm25 candidate list under `filter`, best first: the score of `expr` plus, for each group
  /// of synonyms (QueryExpansion::match_groups), kSynonymWeight times the best score of one of them.
  std::vector<SearchHit> bm25_list(const Scope& scope, const NodeFilter& filter, const std::string& expr,
                                   const std::vector<std::vector<std::string>>& synonym_groups, int candidates);
  /// The synonyms of `analysis` (none with the AND operator or without a lexicon), and the
  /// `synonyms` and `synonyms_available` debug entries of `response`.
  QueryExpansion expansion_for(const QueryAnalysis& analysis, MatchOperator op, SearchResponse& response);
  /// The lexicon, opened at the first call; nullptr when there is none.
  ILexicon* lexicon();
  /// The role_candidates(top_k) best `hits` cut to `top_k`: the roles the query names first, the
  /// roles it does not ask for last.
  std::vector<SearchHit> prefer_source(const Scope& scope, const std::string& query, const QueryAnalysis& analysis,
                                       std::vector<SearchHit> hits, int top_k);

  /// The visible rowids of `scope` under `filter`, computed once per state of the index.
  const std::vector<int64_t>& visible(const Scope& scope, const NodeFilter& filter);
  /// Drops what was read from the index (vectors, visible rowids) when another connection has
  /// committed since: a re-index while a server runs is seen by its next search.
  void forget_if_changed();

  std::string dir_;
  LocalBackendOptions options_;
  std::unique_ptr<IndexStore> store_;
  std::map<std::string, std::unique_ptr<IEmbedder>> embedders_;
  std::unique_ptr<IEmbedder> fixed_embedder_;
  std::map<std::string, std::unique_ptr<VectorIndex>> vectors_;
  std::map<std::string, std::vector<int64_t>> visible_;  ///< by scope and filter condition
  int64_t data_version_ = -1;
  std::unique_ptr<ILexicon> lexicon_;
  bool lexicon_opened_ = false;
};

/// make_retrieval_backend inside the retrieval module: kind "local" opens `index_dir` as a
/// LocalBackend; any other kind is RetrievalError(kInvalidArgument).
std::unique_ptr<IRetrievalBackend> make_local_backend(std::string_view kind, const std::string& index_dir);

}  // namespace attractor::retrieval
