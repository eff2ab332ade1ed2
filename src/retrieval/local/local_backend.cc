#include "retrieval/local/local_backend.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "retrieval/local/code_tokens.h"
#include "retrieval/local/node_role.h"
#include "retrieval/local/role_ranking.h"
#include "retrieval/local/rrf.h"
#include "retrieval/local/sqlite_db.h"
#include "retrieval/local/vector_sync.h"

namespace attractor::retrieval {

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw RetrievalError(RetrievalError::Kind::kInvalidArgument, message);
}

void require_scope(const std::string& repository, const std::string& branch) {
  require(!repository.empty(), "repository is required");
  require(!branch.empty(), "branch is required");
}

std::vector<SearchHit> rank_hits(std::vector<std::pair<std::string, double>> scored, int top_k) {
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  });
  std::vector<SearchHit> hits;
  for (size_t i = 0; i < scored.size() && static_cast<int>(i) < top_k; ++i) {
    hits.push_back({scored[i].first, scored[i].second, static_cast<int>(i) + 1});
  }
  return hits;
}

/// The roles `query` does not ask for, less those it names.
std::set<std::string> demoted_for(const std::string& query, const QueryAnalysis& analysis) {
  std::set<std::string> demoted;
  for (const auto& role : demoted_roles(query)) {
    if (!analysis.roles.count(role)) demoted.insert(role);
  }
  return demoted;
}

/// `filter` narrowed to nodes of `kinds`, or nothing when no kind is named.
std::optional<NodeFilter> with_kinds(const NodeFilter& filter, const std::set<std::string>& kinds) {
  if (kinds.empty()) return std::nullopt;
  NodeFilter narrowed = filter;
  narrowed.column_equals.emplace_back("kind", std::vector<std::string>(kinds.begin(), kinds.end()));
  return narrowed;
}

// How close to the best hit of any kind a hit of a named kind must score to be placed first
// (docs/retrieval.md section 4.1.1): bm25 scores spread widely, the offline embedder's cosines
// sit in a narrow band.
constexpr double kKindShareBm25 = 0.3;
constexpr double kKindShareSemantic = 0.8;

/// How many nodes match `phrase` in the whole index (not only the scope), counted up to `bound`:
/// the vocabulary check of the synonym expansion. It runs through FTS5's MATCH so that the
/// table's own porter tokenizer stems the phrase.
int64_t phrase_count(SqliteDb& db, const std::string& phrase, int64_t bound) {
  auto s = db.prepare("SELECT count(*) FROM (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?)");
  s.bind(1, "\"" + phrase + "\"");
  s.bind(2, bound);
  return s.step() ? s.integer(0) : 0;
}

/// How many nodes the whole index holds (every scope, as phrase_count counts).
int64_t node_count(SqliteDb& db) {
  auto s = db.prepare("SELECT count(*) FROM nodes");
  return s.step() ? s.integer(0) : 0;
}

/// The hits of the named kinds (`first`) that score at least `share` of the best hit of any kind,
/// then the hits of `rest` (every kind) not already placed; ranks renumbered. When the query names
/// an identifier the named kinds get only the first half of the `top_k` places.
std::vector<SearchHit> kinds_first(std::vector<SearchHit> first, const std::vector<SearchHit>& rest,
                                   const QueryAnalysis& analysis, int top_k, double share) {
  if (!rest.empty() && rest.front().score > 0) {
    const double floor = share * rest.front().score;
    first.erase(std::find_if(first.begin(), first.end(), [&](const SearchHit& h) { return h.score < floor; }),
                first.end());
  }
  if (analysis.names_identifier) first.resize(std::min(first.size(), static_cast<size_t>((top_k + 1) / 2)));
  std::set<std::string> seen;
  for (const auto& h : first) seen.insert(h.id);
  for (const auto& h : rest) {
    if (seen.insert(h.id).second) first.push_back(h);
  }
  for (size_t i = 0; i < first.size(); ++i) first[i].rank = static_cast<int>(i) + 1;
  return first;
}

}  // namespace

LocalBackend::LocalBackend(const std::string& index_dir, LocalBackendOptions options)
    : dir_(index_dir), options_(std::move(options)), store_(std::make_unique<IndexStore>(index_dir, false)) {}

LocalBackend::LocalBackend(const std::string& index_dir, std::unique_ptr<IEmbedder> embedder)
    : dir_(index_dir), store_(std::make_unique<IndexStore>(index_dir, false)), fixed_embedder_(std::move(embedder)) {}

Scope LocalBackend::scope_for(const std::string& repository, const std::string& branch, const NodeFilter& filter,
                              const std::optional<std::string>& active_index) {
  require_scope(repository, branch);
  std::string index_name = active_index && !active_index->empty() ? *active_index : "default";
  return store_->resolve_scope(index_name, repository, branch, filter.snapshot);
}

IEmbedder& LocalBackend::query_embedder(const std::string& index_name) {
  auto record = store_->index_record(index_name);
  if (!record) {
    throw RetrievalError(RetrievalError::Kind::kUnavailable, "named index '" + index_name + "' has no vectors");
  }
  IEmbedder* embedder = fixed_embedder_.get();
  if (!embedder) {
    auto& slot = embedders_[index_name];
    if (!slot) {
      EmbedderSpec spec;
      if (options_.embedder) {
        spec = *options_.embedder;
      } else if (record->provider == "openai") {
        spec = EmbedderSpec::from_environment();
        spec.provider = "openai";
        spec.model = record->model;
      } else {
        spec.provider = record->provider;
        spec.model = record->model;
        spec.dimension = record->dimension;
      }
      slot = make_embedder(spec);
    }
    embedder = slot.get();
  }
  auto info = embedder->info();
  if (info.provider != record->provider || info.model != record->model ||
      (info.dimension != 0 && info.dimension != record->dimension)) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                         "index '" + index_name + "' was built with embeddings " + record->provider + "/" +
                             record->model + " (dimension " + std::to_string(record->dimension) +
                             ") but the query uses " + info.provider + "/" + info.model + " (dimension " +
                             std::to_string(info.dimension) + ")");
  }
  return *embedder;
}

const std::vector<int64_t>& LocalBackend::visible(const Scope& scope, const NodeFilter& filter) {
  std::vector<std::string> binds;
  std::string key = scope.index_name + '\0' + scope.repository + '\0' + scope.branch + '\0' + scope.snapshot + '\0' +
                    filter.sql_condition("n", binds);
  for (const auto& b : binds) key += '\0' + b;
  auto it = visible_.find(key);
  if (it == visible_.end()) it = visible_.emplace(key, store_->visible_rowids(scope, filter)).first;
  return it->second;
}

void LocalBackend::forget_if_changed() {
  int64_t version = store_->data_version();
  if (version == data_version_) return;
  data_version_ = version;
  vectors_.clear();
  visible_.clear();
}

const VectorIndex& LocalBackend::vectors(const std::string& index_name) {
  auto& slot = vectors_[index_name];
  if (!slot) slot = std::make_unique<VectorIndex>(load_vectors(*store_, index_name));
  return *slot;
}

std::vector<SearchHit> LocalBackend::prefer_source(const Scope& scope, const std::string& query,
                                                   const QueryAnalysis& analysis, std::vector<SearchHit> hits,
                                                   int top_k) {
  const std::set<std::string> demoted = demoted_for(query, analysis);
  if (demoted.empty() && analysis.roles.empty()) return prefer_roles(hits, {}, demoted, analysis.roles, top_k);
  std::vector<std::string> ids;
  for (const auto& h : hits) ids.push_back(h.id);
  return prefer_roles(hits, store_->metadata_values(scope, ids, kRoleKey), demoted, analysis.roles, top_k);
}

std::vector<SearchHit> LocalBackend::semantic_list(const Scope& scope, const NodeFilter& filter,
                                                   const std::string& text, int candidates) {
  auto& embedder = query_embedder(scope.index_name);
  auto qv = embedder.embed({text});
  const auto& index = vectors(scope.index_name);
  if (qv.size() != 1 || static_cast<int>(qv[0].size()) != index.dimension()) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "query embedding dimension does not match the index");
  }
  const auto& allowed = visible(scope, filter);
  // When every vector of the named index is visible the selector is skipped (same result, faster).
  bool everything = static_cast<int64_t>(allowed.size()) == index.size();
  // A few extra candidates so equal scores at the cut are decided by id, not by FAISS order.
  auto found = index.search(qv[0], candidates + 8, everything ? nullptr : &allowed);
  std::vector<int64_t> rowids;
  for (const auto& f : found) rowids.push_back(f.first);
  auto ids = store_->ids_of(rowids);
  std::vector<std::pair<std::string, double>> scored;
  for (const auto& [rowid, score] : found) {
    auto it = ids.find(rowid);
    if (it != ids.end()) scored.emplace_back(it->second, static_cast<double>(score));
  }
  return rank_hits(std::move(scored), candidates);
}

std::vector<SearchHit> LocalBackend::semantic_hits(const Scope& scope, const NodeFilter& filter,
                                                   const std::string& query, const QueryAnalysis& analysis, int top_k) {
  const int candidates = role_candidates(top_k);
  // The embedder reads the query as written: dropping stop words made the offline one's vectors
  // worse on the tracked questions (docs/decisions.md), and a model reads sentences.
  auto hits = semantic_list(scope, filter, query, candidates);
  if (auto kind_filter = with_kinds(filter, analysis.kinds)) {
    hits = kinds_first(semantic_list(scope, *kind_filter, query, candidates), hits, analysis, top_k,
                       kKindShareSemantic);
  }
  return prefer_source(scope, query, analysis, std::move(hits), top_k);
}

std::vector<SearchHit> LocalBackend::bm25_list(const Scope& scope, const NodeFilter& filter, const std::string& expr,
                                               const std::vector<std::vector<std::string>>& synonym_groups,
                                               int candidates) {
  const auto& shown = visible(scope, filter);
  auto scored = store_->bm25_among(shown, expr, candidates);
  if (synonym_groups.empty()) return rank_hits(std::move(scored), candidates);
  // A synonym stands in for its query word once: of a word's synonyms only the best-scoring one
  // counts, so that a node naming several common ones ("name", "state") does not add them up.
  std::map<std::string, double> total(scored.begin(), scored.end());
  for (const auto& group : synonym_groups) {
    std::map<std::string, double> best;
    for (const auto& phrase : group) {
      for (const auto& [id, score] : store_->bm25_among(shown, phrase, candidates)) {
        best[id] = std::max(best[id], score);
      }
    }
    for (const auto& [id, score] : best) total[id] += kSynonymWeight * score;
  }
  return rank_hits({total.begin(), total.end()}, candidates);
}

std::vector<SearchHit> LocalBackend::bm25_hits(const Scope& scope, const NodeFilter& filter, const std::string& query,
                                               const QueryAnalysis& analysis, const QueryExpansion& expansion,
                                               int top_k, MatchOperator op) {
  auto expr = fts_match_expression(analysis.search_text, op);
  const auto synonym_groups = expansion.match_groups();
  const int candidates = role_candidates(top_k);
  auto hits = bm25_list(scope, filter, expr, synonym_groups, candidates);
  if (auto kind_filter = with_kinds(filter, analysis.kinds)) {
    hits = kinds_first(bm25_list(scope, *kind_filter, expr, synonym_groups, candidates), hits, analysis, top_k,
                       kKindShareBm25);
  }
  return prefer_source(scope, query, analysis, std::move(hits), top_k);
}

ILexicon* LocalBackend::lexicon() {
  if (!lexicon_opened_) {
    lexicon_opened_ = true;
    if (options_.lexicon) lexicon_ = options_.lexicon();
  }
  return lexicon_.get();
}

QueryExpansion LocalBackend::expansion_for(const QueryAnalysis& analysis, MatchOperator op, SearchResponse& response) {
  ILexicon* words = lexicon();
  response.debug["synonyms_available"] = words != nullptr;
  QueryExpansion expansion;
  if (words && op == MatchOperator::kOr) {
    const int64_t nodes = node_count(store_->db());
    // Past the rare-word limit the exact count does not matter.
    const int64_t bound = nodes / kRareWordShare + 1;
    auto count = [this, bound](const std::string& phrase) { return phrase_count(store_->db(), phrase, bound); };
    expansion = expand_query(analysis, *words, count, nodes);
  }
  response.debug["synonyms"] = nlohmann::json::object();
  for (const auto& [word, found] : expansion.synonyms) response.debug["synonyms"][word] = found;
  return expansion;
}

SearchResponse LocalBackend::search(const SearchRequest& request) {
  require(request.top_k >= 1, "top_k must be >= 1");
  require(request.rrf_k >= 1, "rrf_k must be an integer >= 1");
  std::string query = request.query;
  query.erase(0, query.find_first_not_of(" \t\r\n"));
  require(!query.empty(), "query is empty");
  forget_if_changed();
  auto filter = NodeFilter::parse(request.retrieval_filters);
  auto scope = scope_for(request.repository, request.branch, filter, request.active_index);
  auto op = request.match_operator.value_or(MatchOperator::kOr);

  SearchResponse response;
  response.debug["search_type"] = std::string(to_string(request.search_type));
  response.debug["active_index"] = scope.index_name;
  response.debug["snapshot"] = scope.snapshot;
  const QueryAnalysis analysis = analyze_query(query);
  response.debug["demoted_roles"] = demoted_for(query, analysis);
  response.debug["query_terms"] = analysis.search_text;
  response.debug["preferred_kinds"] = analysis.kinds;
  response.debug["preferred_roles"] = analysis.roles;
  switch (request.search_type) {
    case SearchType::kBm25:
      response.hits = bm25_hits(scope, filter, query, analysis, expansion_for(analysis, op, response), request.top_k,
                                op);
      response.debug["match_operator"] = op == MatchOperator::kAnd ? "and" : "or";
      break;
    case SearchType::kSemantic: response.hits = semantic_hits(scope, filter, query, analysis, request.top_k); break;
    case SearchType::kHybrid: {
      auto semantic = semantic_hits(scope, filter, query, analysis, request.top_k);
      auto bm25 = bm25_hits(scope, filter, query, analysis, expansion_for(analysis, op, response), request.top_k, op);
      response.debug["semantic_count"] = semantic.size();
      response.debug["bm25_count"] = bm25.size();
      response.debug["rrf_k"] = request.rrf_k;
      response.hits = fuse_rrf(semantic, bm25, request.rrf_k, request.top_k);
      break;
    }
  }
  return response;
}

std::map<std::string, std::string> LocalBackend::fetch_texts(const std::vector<std::string>& ids,
                                                             const std::string& repository, const std::string& branch,
                                                             const nlohmann::json& retrieval_filters,
                                                             const std::optional<std::string>& active_index) {
  auto filter = NodeFilter::parse(retrieval_filters);
  auto scope = scope_for(repository, branch, filter, active_index);
  return store_->texts(scope, filter, ids);
}

std::vector<NodeInfo> LocalBackend::describe(const std::vector<std::string>& ids, const std::string& repository,
                                             const std::string& branch, const nlohmann::json& retrieval_filters,
                                             const std::optional<std::string>& active_index) {
  auto filter = NodeFilter::parse(retrieval_filters);
  auto scope = scope_for(repository, branch, filter, active_index);
  auto found = store_->describe(scope, filter, ids);
  std::vector<NodeInfo> out;
  for (const auto& id : ids) {
    if (auto it = found.find(id); it != found.end()) out.push_back(it->second);
  }
  return out;
}

ExpandResult LocalBackend::expand(const ExpandRequest& request) {
  require(request.max_depth >= 0, "max_depth must be >= 0");
  require(request.max_nodes >= 1, "max_nodes must be >= 1");
  auto filter = NodeFilter::parse(request.retrieval_filters);
  auto scope = scope_for(request.repository, request.branch, filter, request.active_index);

  std::set<std::pair<std::string, bool>> allow;  // (edge type, outgoing)
  for (const auto& entry : request.edge_allowlist) {
    require(!entry.empty() && entry != "~", "empty edge type in edge_allowlist");
    if (entry[0] == '~') allow.insert({entry.substr(1), false});
    else allow.insert({entry, true});
  }

  std::unordered_map<std::string, bool> visibility;
  auto visible = [&](const std::string& id) {
    auto it = visibility.find(id);
    if (it != visibility.end()) return it->second;
    bool v = store_->visible(scope, filter, id);
    visibility[id] = v;
    return v;
  };

  ExpandResult result;
  std::unordered_map<std::string, int> depth_of;
  for (const auto& id : request.seed_ids) {
    if (depth_of.count(id) || !visible(id)) continue;
    if (static_cast<int>(result.nodes.size()) >= request.max_nodes) {
      result.truncated = true;
      break;
    }
    depth_of[id] = 0;
    result.seed_ids.push_back(id);
    result.nodes.push_back({id, 0, std::nullopt});
  }
  if (result.seed_ids.empty()) {
    result.reason = "no_seeds";
    return result;
  }

  std::set<std::tuple<std::string, std::string, std::string>> seen_edges;
  std::deque<std::string> queue(result.seed_ids.begin(), result.seed_ids.end());
  while (!queue.empty() && !result.truncated) {
    std::string current = queue.front();
    queue.pop_front();
    int depth = depth_of[current];
    if (depth >= request.max_depth) continue;
    struct Step {
      std::string edge_type;
      std::string other;
      bool outgoing;
      GraphEdge edge;
    };
    std::vector<Step> steps;
    for (const auto& [type, outgoing] : allow) {
      for (auto& e : store_->edges_of(scope, current, type, outgoing)) {
        std::string other = outgoing ? e.to_id : e.from_id;
        steps.push_back({type, other, outgoing, std::move(e)});
      }
    }
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
      return std::tie(a.edge_type, a.other, b.outgoing) < std::tie(b.edge_type, b.other, a.outgoing);
    });
    for (auto& step : steps) {
      if (!visible(step.other)) continue;
      if (!depth_of.count(step.other)) {
        if (static_cast<int>(result.nodes.size()) >= request.max_nodes) {
          result.truncated = true;
          break;
        }
        depth_of[step.other] = depth + 1;
        result.nodes.push_back({step.other, depth + 1, current});
        queue.push_back(step.other);
      }
      if (seen_edges.insert({step.edge.from_id, step.edge.to_id, step.edge.edge_type}).second) {
        result.edges.push_back(step.edge);
      }
    }
  }
  result.reason = result.truncated ? "limit_reached" : "ok";
  return result;
}

std::unique_ptr<IRetrievalBackend> make_local_backend(std::string_view kind, const std::string& index_dir) {
  if (kind == "local") return std::make_unique<LocalBackend>(index_dir);
  throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                       "unknown retrieval backend '" + std::string(kind) + "' (available: local)");
}

}  // namespace attractor::retrieval
