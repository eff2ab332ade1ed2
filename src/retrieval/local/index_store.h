#pragma once
/// \file
/// The SQLite side of a local index directory (`DIR/index.sqlite`).
///
/// Tables: `indexes` (named indexes and the embedding provider recorded for each), `scopes`
/// (index + repository + branch + snapshot, with an indexing sequence number so "latest snapshot"
/// is well defined), `files` (content hashes for incremental re-indexing), `nodes` (one row per
/// symbol: id, location, exact source text, ACL tags, classification labels, metadata, and the
/// extractor's `facts` used to relink the graph), `edges` (typed, from_id -> to_id) and the FTS5
/// table `nodes_fts(name, signature, doc, body)` whose rowid is the node's rowid (fts_fields.h).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "retrieval/backend.h"
#include "retrieval/filters.h"
#include "retrieval/local/sqlite_db.h"

namespace attractor::retrieval {

/// The unit in which node ids are unique.
struct Scope {
  std::string index_name = "default";
  std::string repository;
  std::string branch;
  std::string snapshot;
};

/// A node as stored.
struct StoredNode {
  int64_t rowid = 0;
  std::string id;
  std::string path;
  std::string language;
  std::string kind;
  std::string name;
  int start_line = 0;
  int end_line = 0;
  std::string text;
  nlohmann::json acl_tags = nlohmann::json::array();
  nlohmann::json labels = nlohmann::json::array();
  nlohmann::json metadata = nlohmann::json::object();
  nlohmann::json facts = nlohmann::json::object();
};

/// What the indexes table records about one named index.
struct IndexRecord {
  std::string name;
  std::string provider;
  std::string model;
  int dimension = 0;
  std::string vector_kind;  ///< "flat" | "hnsw"
};

/// Rows a sync wrote: inserted or changed, and deleted.
struct SyncCounts {
  int64_t added = 0;
  int64_t removed = 0;
};

/// Access to `DIR/index.sqlite`.
class IndexStore {
 public:
  /// Opens the store; `writable` creates the directory, database and schema when missing.
  IndexStore(const std::string& dir, bool writable);

  static std::string database_path(const std::string& dir);
  /// The FAISS file of a named index.
  static std::string vector_path(const std::string& dir, const std::string& index_name);

  const std::string& dir() const { return dir_; }
  SqliteDb& db() { return *db_; }

  void begin();
  void commit();
  void rollback();

  /// The scope for a request: the given snapshot, or the most recently indexed one.
  /// Throws RetrievalError(kNotFound) when the repository/branch/snapshot was never indexed.
  Scope resolve_scope(const std::string& index_name, const std::string& repository, const std::string& branch,
                      const std::optional<std::string>& snapshot);

  std::optional<IndexRecord> index_record(const std::string& name);
  void put_index_record(const IndexRecord& record);

  /// Marks `scope` as the most recently indexed snapshot of its repository + branch.
  void touch_scope(const Scope& scope);

  /// path -> sha256 of the files indexed in `scope`.
  std::map<std::string, std::string> file_hashes(const Scope& scope);
  void put_file(const Scope& scope, const std::string& path, const std::string& sha256, const std::string& language);
  /// The parse issues recorded per file of `scope`: path -> JSON array of {line, column, message}.
  std::map<std::string, nlohmann::json> file_issues(const Scope& scope);
  /// Records `issues` (a JSON array) for `path`, replacing what was there; an empty array clears it.
  /// Writes nothing when they are what is stored.
  void put_file_issues(const Scope& scope, const std::string& path, const nlohmann::json& issues);
  /// Replaces the file-level facts of `path` (an object such as {"global_usings": [...]}; an empty
  /// one removes them). They outlive a file without nodes, such as a GlobalUsings.cs. Returns false,
  /// having written nothing, when they are what is stored.
  bool put_file_facts(const Scope& scope, const std::string& path, const nlohmann::json& facts);
  /// The `global using` namespaces recorded in the file facts of `scope`, by the project of the
  /// file that declares them (its `project` fact; "" for a file outside every project).
  std::map<std::string, std::set<std::string>> global_usings(const Scope& scope);
  /// Deletes a file's record, its nodes and its parse issues; returns the removed node rowids.
  std::vector<int64_t> delete_file(const Scope& scope, const std::string& path);

  /// Every node of `path` in `scope`, text and facts included, with its rowid, by rowid.
  std::vector<StoredNode> nodes_of_file(const Scope& scope, const std::string& path);
  /// Deletes one node and its FTS row.
  void delete_node(int64_t rowid);
  /// Moves a node whose text did not change to new lines (an edit above it).
  void update_lines(int64_t rowid, int start_line, int end_line);
  /// Inserts a node (and its FTS row); returns its rowid.
  int64_t insert_node(const Scope& scope, const StoredNode& node);
  /// True when `id` exists in `scope`.
  bool has_node(const Scope& scope, const std::string& id);
  /// Every node of the scope with its facts (text omitted), ordered by id.
  std::vector<StoredNode> nodes_for_linking(const Scope& scope);
  /// (rowid, embedding input) of the given rowids, for the embedder.
  std::vector<std::pair<int64_t, std::string>> embedding_inputs(const std::vector<int64_t>& rowids);
  /// Every node rowid of a named index (all scopes).
  std::vector<int64_t> index_rowids(const std::string& index_name);

  /// Makes the scope's edges exactly `edges`, deleting and inserting only the difference (a
  /// relink that finds the same graph writes nothing).
  SyncCounts sync_edges(const Scope& scope, const std::vector<GraphEdge>& edges);

  /// Makes the scope's duplicate SQL definitions exactly `duplicate_of` (id -> canonical id; search
  /// leaves them out) and `metadata.also_defined_in` of each canonical node the paths of the
  /// others, writing only what differs.
  SyncCounts sync_duplicates(const Scope& scope, const std::map<std::string, std::string>& duplicate_of,
                             const std::map<std::string, std::vector<std::string>>& other_paths);

  /// Counts for the summary: nodes by kind and edges by type.
  std::map<std::string, int64_t> node_counts(const Scope& scope);
  std::map<std::string, int64_t> edge_counts(const Scope& scope);

  // Reads, all filtered.
  /// Best bm25 matches among `visible` (sorted rowids, as visible_rowids returns them): (id,
  /// score) with score = -bm25() (higher is better), ties by id. The full-text table is read alone
  /// in score order and the join is a lookup in `visible`, which a caller that searches a scope
  /// repeatedly computes once (LocalBackend).
  std::vector<std::pair<std::string, double>> bm25_among(const std::vector<int64_t>& visible,
                                                         const std::string& match_expression, int limit);
  /// Rowids of the visible nodes of the scope, ascending.
  std::vector<int64_t> visible_rowids(const Scope& scope, const NodeFilter& filter);
  /// SQLite's data_version: changes when another connection commits (a re-index).
  int64_t data_version();
  /// rowid -> id for the given rowids.
  std::map<int64_t, std::string> ids_of(const std::vector<int64_t>& rowids);
  /// id -> text for the visible ids among `ids`.
  std::map<std::string, std::string> texts(const Scope& scope, const NodeFilter& filter,
                                           const std::vector<std::string>& ids);
  /// id -> the string value of metadata key `key` for the nodes among `ids` that have it (no filter:
  /// callers pass ids a filtered search already returned).
  std::map<std::string, std::string> metadata_values(const Scope& scope, const std::vector<std::string>& ids,
                                                     const std::string& key);
  /// Visible nodes among `ids` (text omitted), keyed by id.
  std::map<std::string, NodeInfo> describe(const Scope& scope, const NodeFilter& filter,
                                           const std::vector<std::string>& ids);
  bool visible(const Scope& scope, const NodeFilter& filter, const std::string& id);
  /// Edges leaving (`outgoing`) or entering `id` with the given type, ordered by the other end's id.
  std::vector<GraphEdge> edges_of(const Scope& scope, const std::string& id, const std::string& edge_type,
                                  bool outgoing);

 private:
  /// Brings `metadata.also_defined_in` of the scope's nodes to `other_paths`.
  void sync_also_defined_in(const Scope& scope, const std::map<std::string, std::vector<std::string>>& other_paths,
                            SyncCounts& counts);
  /// Replaces the one row of `table` for `path` with `value` in `column` (none when it is empty);
  /// false, having written nothing, when that is what the table holds.
  bool replace_file_row(const char* table, const char* column, const Scope& scope, const std::string& path,
                        const nlohmann::json& value);
  void insert_fts(int64_t rowid, const StoredNode& node);
  /// The number of columns of `nodes_fts` (2 in an index written before the signature and doc
  /// columns, 4 since).
  int fts_columns();
  /// Rebuilds a two-column `nodes_fts` of an older index with the four columns, from the nodes.
  void upgrade_fts();
  /// A statement prepared once per store (hot paths of the indexer).
  SqliteStatement& cached(std::unique_ptr<SqliteStatement>& slot, const std::string& sql);

  std::string dir_;
  std::unique_ptr<SqliteDb> db_;
  std::string not_duplicate_;  ///< the search condition that leaves duplicates out, when the table exists
  std::string fts_weights_;    ///< the bm25() weights for the columns this index's nodes_fts has
  std::unique_ptr<SqliteStatement> insert_node_, insert_fts_, has_node_, delete_fts_, delete_node_;
};

}  // namespace attractor::retrieval
