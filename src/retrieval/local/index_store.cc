#include "retrieval/local/index_store.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include <fmt/format.h>

#include "attractor/base/json_limits.h"
#include "attractor/base/utf8.h"
#include "retrieval/local/code_tokens.h"
#include "retrieval/local/fts_fields.h"

namespace attractor::retrieval {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '1');
CREATE TABLE IF NOT EXISTS indexes(
  name TEXT PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, dimension INTEGER NOT NULL,
  vector_kind TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scopes(
  index_name TEXT NOT NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, snapshot TEXT NOT NULL,
  seq INTEGER NOT NULL, PRIMARY KEY(index_name, repository, branch, snapshot));
CREATE TABLE IF NOT EXISTS files(
  index_name TEXT NOT NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, snapshot TEXT NOT NULL,
  path TEXT NOT NULL, sha256 TEXT NOT NULL, language TEXT NOT NULL,
  PRIMARY KEY(index_name, repository, branch, snapshot, path));
CREATE TABLE IF NOT EXISTS nodes(
  rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  index_name TEXT NOT NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, snapshot TEXT NOT NULL,
  id TEXT NOT NULL, path TEXT NOT NULL, language TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, text TEXT NOT NULL,
  acl_tags TEXT NOT NULL, labels TEXT NOT NULL, metadata TEXT NOT NULL, facts TEXT NOT NULL,
  UNIQUE(index_name, repository, branch, snapshot, id));
CREATE INDEX IF NOT EXISTS nodes_by_path ON nodes(index_name, repository, branch, snapshot, path);
CREATE TABLE IF NOT EXISTS edges(
  index_name TEXT NOT NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, snapshot TEXT NOT NULL,
  from_id TEXT NOT NULL, to_id TEXT NOT NULL, edge_type TEXT NOT NULL,
  PRIMARY KEY(index_name, repository, branch, snapshot, from_id, edge_type, to_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edges_by_target ON edges(index_name, repository, branch, snapshot, to_id, edge_type);
CREATE TABLE IF NOT EXISTS file_issues(
  index_name TEXT NOT NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, snapshot TEXT NOT NULL,
  path TEXT NOT NULL, issues TEXT NOT NULL,
  PRIMARY KEY(index_name, repository, branch, snapshot, path));
CREATE TABLE IF NOT EXISTS file_facts(
  index_name TEXT NOT NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, snapshot TEXT NOT NULL,
  path TEXT NOT NULL, facts TEXT NOT NULL,
  PRIMARY KEY(index_name, repository, branch, snapshot, path));
CREATE TABLE IF NOT EXISTS duplicates(
  index_name TEXT NOT NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, snapshot TEXT NOT NULL,
  id TEXT NOT NULL, canonical_id TEXT NOT NULL,
  PRIMARY KEY(index_name, repository, branch, snapshot, id)) WITHOUT ROWID;
)sql";

constexpr const char* kFtsSchema =
    "CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5(name, signature, doc, body, "
    "tokenize = 'porter unicode61 remove_diacritics 2')";

constexpr const char* kScopeWhere = "n.index_name = ? AND n.repository = ? AND n.branch = ? AND n.snapshot = ?";

/// Search sees one node per SQL object: the duplicates of a canonical definition are left out.
constexpr const char* kNotDuplicate =
    " AND NOT EXISTS (SELECT 1 FROM duplicates d WHERE d.index_name = n.index_name AND d.repository = n.repository"
    " AND d.branch = n.branch AND d.snapshot = n.snapshot AND d.id = n.id)";

int bind_scope(SqliteStatement& s, int first, const Scope& scope) {
  s.bind(first, scope.index_name).bind(first + 1, scope.repository).bind(first + 2, scope.branch);
  s.bind(first + 3, scope.snapshot);
  return first + 4;
}

std::string truncate_utf8(const std::string& s, size_t max) {
  std::string_view head = std::string_view(s).substr(0, max);
  return std::string(head.substr(0, utf8_complete_size(head)));
}

}  // namespace

IndexStore::IndexStore(const std::string& dir, bool writable) : dir_(dir) {
  if (writable) {
    std::filesystem::create_directories(dir);
  } else if (!std::filesystem::exists(database_path(dir))) {
    throw RetrievalError(RetrievalError::Kind::kUnavailable, "no index database at " + database_path(dir));
  }
  db_ = std::make_unique<SqliteDb>(database_path(dir), writable);
  // Sorts and GROUP BYs of a large scope would otherwise spill to a temporary file: writes a
  // no-change re-index must not make.
  db_->exec("PRAGMA temp_store = MEMORY");
  bool four_columns = true;  // a writable store upgrades an older two-column table
  if (writable) {
    db_->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db_->exec(kSchema);
    upgrade_fts();
  } else {
    four_columns = fts_columns() == 4;
  }
  fts_weights_ = four_columns
                     ? fmt::format("{}, {}, {}, {}", kFtsWeights[0], kFtsWeights[1], kFtsWeights[2], kFtsWeights[3])
                     : fmt::format("{}, {}", kFtsWeights[0], kFtsWeights[3]);
  auto s = db_->prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'duplicates'");
  not_duplicate_ = s.step() ? kNotDuplicate : "";  // an index written before duplicates existed
}

std::string IndexStore::database_path(const std::string& dir) { return dir + "/index.sqlite"; }

std::string IndexStore::vector_path(const std::string& dir, const std::string& index_name) {
  return dir + "/" + index_name + ".faiss";
}

void IndexStore::begin() { db_->exec("BEGIN IMMEDIATE"); }
void IndexStore::commit() { db_->exec("COMMIT"); }
void IndexStore::rollback() { db_->exec("ROLLBACK"); }

Scope IndexStore::resolve_scope(const std::string& index_name, const std::string& repository, const std::string& branch,
                                const std::optional<std::string>& snapshot) {
  auto s = db_->prepare(
      "SELECT snapshot FROM scopes WHERE index_name = ? AND repository = ? AND branch = ? "
      "AND (? IS NULL OR snapshot = ?) ORDER BY seq DESC, snapshot ASC LIMIT 1");
  s.bind(1, index_name).bind(2, repository).bind(3, branch);
  if (snapshot) s.bind(4, *snapshot).bind(5, *snapshot);
  if (!s.step()) {
    std::string what = "no index for repository '" + repository + "' branch '" + branch + "'";
    if (snapshot) what += " snapshot '" + *snapshot + "'";
    if (index_name != "default") what += " in named index '" + index_name + "'";
    throw RetrievalError(RetrievalError::Kind::kNotFound, what + " under " + dir_);
  }
  return Scope{index_name, repository, branch, s.text(0)};
}

std::optional<IndexRecord> IndexStore::index_record(const std::string& name) {
  auto s = db_->prepare("SELECT provider, model, dimension, vector_kind FROM indexes WHERE name = ?");
  s.bind(1, name);
  if (!s.step()) return std::nullopt;
  return IndexRecord{name, s.text(0), s.text(1), static_cast<int>(s.integer(2)), s.text(3)};
}

void IndexStore::put_index_record(const IndexRecord& r) {
  auto s = db_->prepare(
      "INSERT OR REPLACE INTO indexes(name, provider, model, dimension, vector_kind) VALUES (?,?,?,?,?)");
  s.bind(1, r.name)
      .bind(2, r.provider)
      .bind(3, r.model)
      .bind(4, static_cast<int64_t>(r.dimension))
      .bind(5, r.vector_kind);
  s.run();
}

void IndexStore::touch_scope(const Scope& scope) {
  auto s = db_->prepare(
      "INSERT OR REPLACE INTO scopes(index_name, repository, branch, snapshot, seq) "
      "VALUES (?,?,?,?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM scopes))");
  bind_scope(s, 1, scope);
  s.run();
}

std::map<std::string, std::string> IndexStore::file_hashes(const Scope& scope) {
  auto s = db_->prepare("SELECT path, sha256 FROM files n WHERE " + std::string(kScopeWhere));
  bind_scope(s, 1, scope);
  std::map<std::string, std::string> out;
  while (s.step()) out[s.text(0)] = s.text(1);
  return out;
}

void IndexStore::put_file(const Scope& scope, const std::string& path, const std::string& sha256,
                          const std::string& language) {
  auto s = db_->prepare(
      "INSERT OR REPLACE INTO files(index_name, repository, branch, snapshot, path, sha256, language) "
      "VALUES (?,?,?,?,?,?,?)");
  int i = bind_scope(s, 1, scope);
  s.bind(i, path).bind(i + 1, sha256).bind(i + 2, language);
  s.run();
}

std::map<std::string, nlohmann::json> IndexStore::file_issues(const Scope& scope) {
  auto s = db_->prepare("SELECT path, issues FROM file_issues n WHERE " + std::string(kScopeWhere));
  bind_scope(s, 1, scope);
  std::map<std::string, nlohmann::json> out;
  while (s.step()) out[s.text(0)] = parse_json_or_discarded(s.text(1));
  return out;
}

void IndexStore::put_file_issues(const Scope& scope, const std::string& path, const nlohmann::json& issues) {
  (void)replace_file_row("file_issues", "issues", scope, path, issues.is_array() ? issues : nlohmann::json::array());
}

bool IndexStore::put_file_facts(const Scope& scope, const std::string& path, const nlohmann::json& facts) {
  return replace_file_row("file_facts", "facts", scope, path, facts.is_object() ? facts : nlohmann::json::object());
}

bool IndexStore::replace_file_row(const char* table, const char* column, const Scope& scope, const std::string& path,
                                  const nlohmann::json& value) {
  auto old = db_->prepare(fmt::format("SELECT {} FROM {} AS n WHERE {} AND path = ?", column, table, kScopeWhere));
  old.bind(bind_scope(old, 1, scope), path);
  const bool had = old.step();
  if (had ? parse_json_or_discarded(old.text(0)) == value : value.empty()) return false;
  auto del = db_->prepare(fmt::format("DELETE FROM {} AS n WHERE {} AND path = ?", table, kScopeWhere));
  del.bind(bind_scope(del, 1, scope), path).run();
  if (value.empty()) return true;
  auto s = db_->prepare(fmt::format(
      "INSERT INTO {}(index_name, repository, branch, snapshot, path, {}) VALUES (?,?,?,?,?,?)", table, column));
  int i = bind_scope(s, 1, scope);
  s.bind(i, path).bind(i + 1, value.dump());
  s.run();
  return true;
}

std::map<std::string, std::set<std::string>> IndexStore::global_usings(const Scope& scope) {
  auto s = db_->prepare("SELECT facts FROM file_facts n WHERE " + std::string(kScopeWhere));
  bind_scope(s, 1, scope);
  std::map<std::string, std::set<std::string>> out;
  while (s.step()) {
    const nlohmann::json facts = parse_json_or_discarded(s.text(0));
    if (!facts.is_object() || !facts.contains("global_usings") || !facts["global_usings"].is_array()) continue;
    auto& project = out[facts.value("project", std::string())];
    for (const auto& g : facts["global_usings"]) {
      if (g.is_string()) project.insert(g.get<std::string>());
    }
  }
  return out;
}

std::vector<int64_t> IndexStore::delete_file(const Scope& scope, const std::string& path) {
  std::vector<int64_t> rowids;
  {
    auto s = db_->prepare("SELECT rowid FROM nodes n WHERE " + std::string(kScopeWhere) + " AND path = ?");
    int i = bind_scope(s, 1, scope);
    s.bind(i, path);
    while (s.step()) rowids.push_back(s.integer(0));
  }
  for (auto r : rowids) delete_node(r);
  auto s = db_->prepare("DELETE FROM files AS n WHERE " + std::string(kScopeWhere) + " AND path = ?");
  int i = bind_scope(s, 1, scope);
  s.bind(i, path).run();
  put_file_issues(scope, path, nlohmann::json::array());
  put_file_facts(scope, path, nlohmann::json::object());
  return rowids;
}

std::vector<StoredNode> IndexStore::nodes_of_file(const Scope& scope, const std::string& path) {
  auto s = db_->prepare(
      "SELECT rowid, id, language, kind, name, start_line, end_line, text, acl_tags, labels, metadata, facts "
      "FROM nodes n WHERE " +
      std::string(kScopeWhere) + " AND path = ? ORDER BY rowid");
  s.bind(bind_scope(s, 1, scope), path);
  std::vector<StoredNode> out;
  while (s.step()) {
    StoredNode n;
    n.rowid = s.integer(0);
    n.id = s.text(1);
    n.path = path;
    n.language = s.text(2);
    n.kind = s.text(3);
    n.name = s.text(4);
    n.start_line = static_cast<int>(s.integer(5));
    n.end_line = static_cast<int>(s.integer(6));
    n.text = s.text(7);
    n.acl_tags = parse_json_or_discarded(s.text(8));
    n.labels = parse_json_or_discarded(s.text(9));
    n.metadata = parse_json_or_discarded(s.text(10));
    n.facts = parse_json_or_discarded(s.text(11));
    out.push_back(std::move(n));
  }
  return out;
}

void IndexStore::delete_node(int64_t rowid) {
  auto& f = cached(delete_fts_, "DELETE FROM nodes_fts WHERE rowid = ?");
  f.bind(1, rowid).run();
  auto& n = cached(delete_node_, "DELETE FROM nodes WHERE rowid = ?");
  n.bind(1, rowid).run();
}

void IndexStore::update_lines(int64_t rowid, int start_line, int end_line) {
  auto s = db_->prepare("UPDATE nodes SET start_line = ?, end_line = ? WHERE rowid = ?");
  s.bind(1, static_cast<int64_t>(start_line)).bind(2, static_cast<int64_t>(end_line)).bind(3, rowid).run();
}

SqliteStatement& IndexStore::cached(std::unique_ptr<SqliteStatement>& slot, const std::string& sql) {
  if (!slot) slot = std::make_unique<SqliteStatement>(db_->handle(), sql);
  slot->reset();
  return *slot;
}

int64_t IndexStore::insert_node(const Scope& scope, const StoredNode& node) {
  auto& s = cached(
      insert_node_,
      "INSERT INTO nodes(index_name, repository, branch, snapshot, id, path, language, kind, name, start_line, "
      "end_line, text, acl_tags, labels, metadata, facts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  int i = bind_scope(s, 1, scope);
  s.bind(i, node.id).bind(i + 1, node.path).bind(i + 2, node.language).bind(i + 3, node.kind);
  s.bind(i + 4, node.name).bind(i + 5, static_cast<int64_t>(node.start_line));
  s.bind(i + 6, static_cast<int64_t>(node.end_line)).bind(i + 7, node.text);
  s.bind(i + 8, node.acl_tags.dump()).bind(i + 9, node.labels.dump()).bind(i + 10, node.metadata.dump());
  s.bind(i + 11, node.facts.dump());
  s.run();
  int64_t rowid = db_->last_insert_rowid();
  insert_fts(rowid, node);
  return rowid;
}

void IndexStore::insert_fts(int64_t rowid, const StoredNode& node) {
  auto& f = cached(insert_fts_, "INSERT INTO nodes_fts(rowid, name, signature, doc, body) VALUES (?,?,?,?,?)");
  FtsFields fields = fts_fields(node);
  f.bind(1, rowid).bind(2, fields.name).bind(3, fields.signature).bind(4, fields.doc).bind(5, fields.body);
  f.run();
}

int IndexStore::fts_columns() {
  auto s = db_->prepare("SELECT COUNT(*) FROM pragma_table_info('nodes_fts')");
  return s.step() ? static_cast<int>(s.integer(0)) : 0;
}

void IndexStore::upgrade_fts() {
  if (fts_columns() == 4) return;
  // An index written before the signature and doc columns (or a new one): build the table.
  db_->exec("BEGIN IMMEDIATE; DROP TABLE IF EXISTS nodes_fts");
  db_->exec(kFtsSchema);
  auto s = db_->prepare("SELECT rowid, kind, name, language, text, facts FROM nodes ORDER BY rowid");
  while (s.step()) {
    StoredNode n;
    n.kind = s.text(1);
    n.name = s.text(2);
    n.language = s.text(3);
    n.text = s.text(4);
    n.facts = parse_json_or_discarded(s.text(5));
    insert_fts(s.integer(0), n);
  }
  db_->exec("COMMIT");
}

bool IndexStore::has_node(const Scope& scope, const std::string& id) {
  auto& s = cached(has_node_, "SELECT 1 FROM nodes n WHERE " + std::string(kScopeWhere) + " AND id = ?");
  int i = bind_scope(s, 1, scope);
  s.bind(i, id);
  return s.step();
}

std::vector<StoredNode> IndexStore::nodes_for_linking(const Scope& scope) {
  auto s = db_->prepare(
      "SELECT rowid, id, path, language, kind, name, start_line, end_line, facts FROM nodes n WHERE " +
      std::string(kScopeWhere) + " ORDER BY id");
  bind_scope(s, 1, scope);
  std::vector<StoredNode> out;
  while (s.step()) {
    StoredNode n;
    n.rowid = s.integer(0);
    n.id = s.text(1);
    n.path = s.text(2);
    n.language = s.text(3);
    n.kind = s.text(4);
    n.name = s.text(5);
    n.start_line = static_cast<int>(s.integer(6));
    n.end_line = static_cast<int>(s.integer(7));
    n.facts = parse_json_limited(s.text(8), "the facts of index node " + n.id);
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<std::pair<int64_t, std::string>> IndexStore::embedding_inputs(const std::vector<int64_t>& rowids) {
  auto s = db_->prepare(
      "SELECT kind, name, text, coalesce(json_extract(facts, '$.doc'), '') FROM nodes WHERE rowid = ?");
  std::vector<std::pair<int64_t, std::string>> out;
  for (auto r : rowids) {
    s.bind(1, r);
    if (s.step()) out.emplace_back(r, s.text(0) + " " + s.text(1) + "\n" + truncate_utf8(s.text(3) + s.text(2), 6000));
    s.reset();
  }
  return out;
}

std::vector<int64_t> IndexStore::index_rowids(const std::string& index_name) {
  auto s = db_->prepare("SELECT rowid FROM nodes WHERE index_name = ? ORDER BY rowid");
  s.bind(1, index_name);
  std::vector<int64_t> out;
  while (s.step()) out.push_back(s.integer(0));
  return out;
}

SyncCounts IndexStore::sync_edges(const Scope& scope, const std::vector<GraphEdge>& edges) {
  using Key = std::tuple<std::string, std::string, std::string>;  // from, type, to: the primary key order
  std::set<Key> stored;
  auto q = db_->prepare("SELECT from_id, edge_type, to_id FROM edges n WHERE " + std::string(kScopeWhere));
  bind_scope(q, 1, scope);
  while (q.step()) stored.emplace(q.text(0), q.text(1), q.text(2));
  std::set<Key> wanted;
  for (const auto& e : edges) wanted.emplace(e.from_id, e.edge_type, e.to_id);
  SyncCounts counts;
  auto del = db_->prepare("DELETE FROM edges AS n WHERE " + std::string(kScopeWhere) +
                          " AND from_id = ? AND edge_type = ? AND to_id = ?");
  for (const auto& key : stored) {
    if (wanted.count(key)) continue;
    int i = bind_scope(del, 1, scope);
    del.bind(i, std::get<0>(key)).bind(i + 1, std::get<1>(key)).bind(i + 2, std::get<2>(key));
    del.run();
    del.reset();
    ++counts.removed;
  }
  auto ins = db_->prepare(
      "INSERT INTO edges(index_name, repository, branch, snapshot, from_id, edge_type, to_id) VALUES (?,?,?,?,?,?,?)");
  for (const auto& key : wanted) {
    if (stored.count(key)) continue;
    int i = bind_scope(ins, 1, scope);
    ins.bind(i, std::get<0>(key)).bind(i + 1, std::get<1>(key)).bind(i + 2, std::get<2>(key));
    ins.run();
    ins.reset();
    ++counts.added;
  }
  return counts;
}

SyncCounts IndexStore::sync_duplicates(const Scope& scope, const std::map<std::string, std::string>& duplicate_of,
                                       const std::map<std::string, std::vector<std::string>>& other_paths) {
  std::map<std::string, std::string> stored;
  auto q = db_->prepare("SELECT id, canonical_id FROM duplicates n WHERE " + std::string(kScopeWhere));
  bind_scope(q, 1, scope);
  while (q.step()) stored[q.text(0)] = q.text(1);
  SyncCounts counts;
  auto del = db_->prepare("DELETE FROM duplicates AS n WHERE " + std::string(kScopeWhere) + " AND id = ?");
  for (const auto& [id, canonical] : stored) {
    auto it = duplicate_of.find(id);
    if (it != duplicate_of.end() && it->second == canonical) continue;
    del.bind(bind_scope(del, 1, scope), id).run();
    del.reset();
    ++counts.removed;
  }
  auto ins = db_->prepare(
      "INSERT INTO duplicates(index_name, repository, branch, snapshot, id, canonical_id) VALUES (?,?,?,?,?,?)");
  for (const auto& [id, canonical] : duplicate_of) {
    auto it = stored.find(id);
    if (it != stored.end() && it->second == canonical) continue;
    int i = bind_scope(ins, 1, scope);
    ins.bind(i, id).bind(i + 1, canonical).run();
    ins.reset();
    ++counts.added;
  }
  sync_also_defined_in(scope, other_paths, counts);
  return counts;
}

void IndexStore::sync_also_defined_in(const Scope& scope,
                                      const std::map<std::string, std::vector<std::string>>& other_paths,
                                      SyncCounts& counts) {
  std::map<std::string, nlohmann::json> stored;
  auto q = db_->prepare("SELECT n.id, json_extract(metadata, '$.also_defined_in') FROM nodes n WHERE " +
                        std::string(kScopeWhere) + " AND json_extract(metadata, '$.also_defined_in') IS NOT NULL");
  bind_scope(q, 1, scope);
  while (q.step()) stored[q.text(0)] = parse_json_or_discarded(q.text(1));
  auto clear = db_->prepare("UPDATE nodes AS n SET metadata = json_remove(metadata, '$.also_defined_in') WHERE " +
                            std::string(kScopeWhere) + " AND n.id = ?");
  for (const auto& [id, paths] : stored) {
    if (other_paths.count(id)) continue;
    clear.bind(bind_scope(clear, 1, scope), id).run();
    clear.reset();
    ++counts.removed;
  }
  auto set = db_->prepare("UPDATE nodes AS n SET metadata = json_set(metadata, '$.also_defined_in', json(?)) WHERE " +
                          std::string(kScopeWhere) + " AND n.id = ?");
  for (const auto& [id, paths] : other_paths) {
    const nlohmann::json wanted(paths);
    auto it = stored.find(id);
    if (it != stored.end() && it->second == wanted) continue;
    set.bind(1, wanted.dump());
    set.bind(bind_scope(set, 2, scope), id).run();
    set.reset();
    ++counts.added;
  }
}

std::map<std::string, int64_t> IndexStore::node_counts(const Scope& scope) {
  auto s = db_->prepare("SELECT kind, COUNT(*) FROM nodes n WHERE " + std::string(kScopeWhere) + " GROUP BY kind");
  bind_scope(s, 1, scope);
  std::map<std::string, int64_t> out;
  while (s.step()) out[s.text(0)] = s.integer(1);
  return out;
}

std::map<std::string, int64_t> IndexStore::edge_counts(const Scope& scope) {
  auto s = db_->prepare("SELECT edge_type, COUNT(*) FROM edges n WHERE " + std::string(kScopeWhere) +
                        " GROUP BY edge_type");
  bind_scope(s, 1, scope);
  std::map<std::string, int64_t> out;
  while (s.step()) out[s.text(0)] = s.integer(1);
  return out;
}

std::vector<std::pair<std::string, double>> IndexStore::bm25_among(const std::vector<int64_t>& visible,
                                                                   const std::string& match_expression, int limit) {
  auto s = db_->prepare("SELECT rowid, bm25(nodes_fts, " + fts_weights_ +
                        ") AS score FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY score ASC");
  s.bind(1, match_expression);
  std::vector<std::pair<int64_t, double>> kept;
  double cut = 0;
  const auto wanted = static_cast<size_t>(std::max(limit, 0));
  while (wanted > 0 && s.step()) {
    double score = s.real(1);
    if (kept.size() >= wanted && score > cut) break;  // worse than the last place; ties are kept
    int64_t rowid = s.integer(0);
    if (!std::binary_search(visible.begin(), visible.end(), rowid)) continue;
    kept.emplace_back(rowid, score);
    if (kept.size() == wanted) cut = score;
  }
  std::vector<int64_t> rowids;
  for (const auto& [rowid, score] : kept) rowids.push_back(rowid);
  auto ids = ids_of(rowids);
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [rowid, score] : kept) out.emplace_back(ids[rowid], -score);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (out.size() > wanted) out.resize(wanted);
  return out;
}

int64_t IndexStore::data_version() {
  auto s = db_->prepare("PRAGMA data_version");
  return s.step() ? s.integer(0) : 0;
}

std::vector<int64_t> IndexStore::visible_rowids(const Scope& scope, const NodeFilter& filter) {
  std::vector<std::string> binds;
  std::string cond = filter.sql_condition("n", binds);
  auto s = db_->prepare("SELECT n.rowid FROM nodes n WHERE " + std::string(kScopeWhere) + " AND " + cond +
                        not_duplicate_ + " ORDER BY n.rowid");
  int i = bind_scope(s, 1, scope);
  s.bind_all(i, binds);
  std::vector<int64_t> out;
  while (s.step()) out.push_back(s.integer(0));
  return out;
}

std::map<int64_t, std::string> IndexStore::ids_of(const std::vector<int64_t>& rowids) {
  auto s = db_->prepare("SELECT id FROM nodes WHERE rowid = ?");
  std::map<int64_t, std::string> out;
  for (auto r : rowids) {
    s.bind(1, r);
    if (s.step()) out[r] = s.text(0);
    s.reset();
  }
  return out;
}

std::map<std::string, std::string> IndexStore::texts(const Scope& scope, const NodeFilter& filter,
                                                     const std::vector<std::string>& ids) {
  std::vector<std::string> binds;
  std::string cond = filter.sql_condition("n", binds);
  auto s = db_->prepare("SELECT n.text FROM nodes n WHERE " + std::string(kScopeWhere) + " AND n.id = ? AND " + cond);
  std::map<std::string, std::string> out;
  for (const auto& id : ids) {
    int i = bind_scope(s, 1, scope);
    s.bind(i, id);
    s.bind_all(i + 1, binds);
    if (s.step()) out[id] = s.text(0);
    s.reset();
  }
  return out;
}

std::map<std::string, std::string> IndexStore::metadata_values(const Scope& scope, const std::vector<std::string>& ids,
                                                               const std::string& key) {
  auto s = db_->prepare("SELECT CAST(json_extract(n.metadata, ?) AS TEXT) FROM nodes n WHERE " +
                        std::string(kScopeWhere) + " AND n.id = ?");
  std::map<std::string, std::string> out;
  for (const auto& id : ids) {
    s.bind(1, "$.\"" + key + "\"");
    int i = bind_scope(s, 2, scope);
    s.bind(i, id);
    if (s.step() && !s.is_null(0)) out[id] = s.text(0);
    s.reset();
  }
  return out;
}

std::map<std::string, NodeInfo> IndexStore::describe(const Scope& scope, const NodeFilter& filter,
                                                     const std::vector<std::string>& ids) {
  std::vector<std::string> binds;
  std::string cond = filter.sql_condition("n", binds);
  auto s = db_->prepare("SELECT n.path, n.language, n.kind, n.name, n.start_line, n.end_line FROM nodes n WHERE " +
                        std::string(kScopeWhere) + " AND n.id = ? AND " + cond);
  std::map<std::string, NodeInfo> out;
  for (const auto& id : ids) {
    int i = bind_scope(s, 1, scope);
    s.bind(i, id);
    s.bind_all(i + 1, binds);
    if (s.step()) {
      out[id] = NodeInfo{id,
                         s.text(0),
                         s.text(1),
                         s.text(2),
                         s.text(3),
                         static_cast<int>(s.integer(4)),
                         static_cast<int>(s.integer(5))};
    }
    s.reset();
  }
  return out;
}

bool IndexStore::visible(const Scope& scope, const NodeFilter& filter, const std::string& id) {
  std::vector<std::string> binds;
  std::string cond = filter.sql_condition("n", binds);
  auto s = db_->prepare("SELECT 1 FROM nodes n WHERE " + std::string(kScopeWhere) + " AND n.id = ? AND " + cond);
  int i = bind_scope(s, 1, scope);
  s.bind(i, id);
  s.bind_all(i + 1, binds);
  return s.step();
}

std::vector<GraphEdge> IndexStore::edges_of(const Scope& scope, const std::string& id, const std::string& edge_type,
                                            bool outgoing) {
  std::string sql = outgoing ? "SELECT to_id FROM edges n WHERE " + std::string(kScopeWhere) +
                                   " AND from_id = ? AND edge_type = ? ORDER BY to_id"
                             : "SELECT from_id FROM edges n WHERE " + std::string(kScopeWhere) +
                                   " AND to_id = ? AND edge_type = ? ORDER BY from_id";
  auto s = db_->prepare(sql);
  int i = bind_scope(s, 1, scope);
  s.bind(i, id).bind(i + 1, edge_type);
  std::vector<GraphEdge> out;
  while (s.step()) {
    if (outgoing) out.push_back({id, s.text(0), edge_type});
    else out.push_back({s.text(0), id, edge_type});
  }
  return out;
}

}  // namespace attractor::retrieval
