#pragma once
/// \file
/// The retrieval backend contract (docs/retrieval.md): the only way pipeline actions reach the code index.
/// Every call is scoped by repository + branch (+ snapshot, + active_index) and enforces the
/// "sacred" retrieval filters itself; results are deterministic, ties broken by id.

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor::retrieval {

/// The three search modes of docs/retrieval.md; there are no others.
enum class SearchType { kSemantic, kBm25, kHybrid };

/// "semantic" | "bm25" | "hybrid".
std::string_view to_string(SearchType type);
/// Parses a search type name; nullopt for anything else.
std::optional<SearchType> parse_search_type(std::string_view text);

/// How the terms of a bm25 query combine (`match_operator`, docs/retrieval.md). Default when absent: OR.
enum class MatchOperator { kAnd, kOr };

/// Parses "and" / "or" (case-insensitive); nullopt for anything else.
std::optional<MatchOperator> parse_match_operator(std::string_view text);

/// A search request (docs/retrieval.md, plus the two knobs the steps pass to the backend).
struct SearchRequest {
  SearchType search_type = SearchType::kBm25;
  std::string query;
  int top_k = 10;
  std::string repository;
  std::string branch;
  /// Security-first filters (sacred), enforced by the backend. See filters.h for the keys.
  nlohmann::json retrieval_filters = nlohmann::json::object();
  /// Named index inside the index directory; nullopt = "default".
  std::optional<std::string> active_index;
  /// bm25 only: how query terms combine; nullopt = OR.
  std::optional<MatchOperator> match_operator;
  /// hybrid only: the RRF constant, >= 1.
  int rrf_k = 60;
};

/// One ranked hit: canonical node id, backend score (higher is better), 1-based rank.
struct SearchHit {
  std::string id;
  double score = 0;
  int rank = 0;
  bool operator==(const SearchHit&) const = default;
};

/// Ranked hits plus optional debug information (timings, list sizes, resolved snapshot).
struct SearchResponse {
  std::vector<SearchHit> hits;
  nlohmann::json debug = nlohmann::json::object();
};

/// A directed edge of the unified C# + SQL dependency graph (see edge_types.h for the names).
struct GraphEdge {
  std::string from_id;
  std::string to_id;
  std::string edge_type;
  bool operator==(const GraphEdge&) const = default;
};

/// Graph expansion request: BFS from the seeds over allowed edge types.
struct ExpandRequest {
  std::vector<std::string> seed_ids;
  /// Edge types to follow from->to; an entry prefixed with '~' follows that type backwards (to->from).
  std::vector<std::string> edge_allowlist;
  int max_depth = 1;
  /// Maximum number of nodes in the result, seeds included.
  int max_nodes = 50;
  std::string repository;
  std::string branch;
  nlohmann::json retrieval_filters = nlohmann::json::object();
  std::optional<std::string> active_index;
};

/// One node reached by expansion: depth 0 for seeds; parent is the node it was first reached from.
struct ExpandedNode {
  std::string id;
  int depth = 0;
  std::optional<std::string> parent_id;
  bool operator==(const ExpandedNode&) const = default;
};

/// Expansion result in BFS order (seeds first, in the order given).
struct ExpandResult {
  std::vector<std::string> seed_ids;  ///< the visible seeds, duplicates removed
  std::vector<ExpandedNode> nodes;    ///< seeds and reached nodes
  std::vector<GraphEdge> edges;       ///< every followed edge between returned nodes
  bool truncated = false;
  std::string reason;  ///< "ok" | "no_seeds" | "limit_reached"
};

/// Where a node lives, for people (the search CLI) and logs.
struct NodeInfo {
  std::string id;
  std::string path;
  std::string language;
  std::string kind;
  std::string name;
  int start_line = 0;
  int end_line = 0;
};

/// Error raised by backends. `kInvalidArgument` is a caller mistake (bad filters, empty query,
/// provider mismatch), `kNotFound` an unknown repository/branch/index, `kUnavailable` an
/// unreadable index or failing provider.
class RetrievalError : public std::runtime_error {
 public:
  enum class Kind { kInvalidArgument, kNotFound, kUnavailable };
  RetrievalError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

/// The backend interface. Implementations must enforce filters on every call.
class IRetrievalBackend {
 public:
  virtual ~IRetrievalBackend() = default;

  /// Ranked canonical ids for the request's search type (exactly `top_k` or fewer).
  virtual SearchResponse search(const SearchRequest& request) = 0;

  /// {id -> text} for the visible ids among `ids`; invisible or unknown ids are simply absent.
  virtual std::map<std::string, std::string> fetch_texts(const std::vector<std::string>& ids,
                                                         const std::string& repository, const std::string& branch,
                                                         const nlohmann::json& retrieval_filters,
                                                         const std::optional<std::string>& active_index) = 0;

  /// Deterministic BFS over the unified graph (neighbors sorted by edge type, then id).
  virtual ExpandResult expand(const ExpandRequest& request) = 0;

  /// Location information for the visible ids among `ids`, in the order given.
  virtual std::vector<NodeInfo> describe(const std::vector<std::string>& ids, const std::string& repository,
                                         const std::string& branch, const nlohmann::json& retrieval_filters,
                                         const std::optional<std::string>& active_index) = 0;
};

/// Creates a backend. kind "local": the embedded SQLite FTS5 + FAISS index in `index_dir`.
/// Throws RetrievalError(kInvalidArgument) for an unknown kind, kUnavailable for an unreadable index.
/// The backend lives in the retrieval module (retrieval_module.h), loaded on first use; when the
/// module is missing or from another build this throws RetrievalModuleError (kind kUnavailable).
std::unique_ptr<IRetrievalBackend> make_retrieval_backend(std::string_view kind, const std::string& index_dir);

}  // namespace attractor::retrieval
