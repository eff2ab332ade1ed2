#include "retrieval/local/local_indexer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "attractor/base/input_file.h"
#include "attractor/base/log.h"
#include "retrieval/local/acl_rules.h"
#include "retrieval/local/csharp_extractor.h"
#include "retrieval/local/gitignore.h"
#include "retrieval/local/graph_linker.h"
#include "retrieval/local/index_store.h"
#include "retrieval/local/node_role.h"
#include "retrieval/local/ordered_pool.h"
#include "retrieval/local/path_scope.h"
#include "retrieval/local/source_text.h"
#include "retrieval/local/sql_extractor.h"
#include "retrieval/local/vector_sync.h"

namespace attractor::retrieval {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Part of every file's hash: raised whenever extraction or linking changes, so that re-indexing an
/// index written by an older attractor re-reads every file (and relinks) instead of keeping its old
/// nodes and edges: a run that finds every hash unchanged does not relink.
constexpr const char* kExtractorVersion = "extractors-8 (C# generic ids, primary constructors, FTS columns)";

std::string content_hash(const std::string& content, const std::string& extra) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
  };
  mix(content);
  mix(std::string(1, '\0'));
  mix(extra);
  mix(kExtractorVersion);
  return fmt::format("fnv1a64:{:016x}:{}", h, content.size());
}

std::string lowercase_extension(const fs::path& p) {
  auto ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

std::string language_of(const fs::path& p) {
  const std::string ext = lowercase_extension(p);
  if (ext == ".cs") return "csharp";
  if (ext == ".sql") return "sql";
  return "";
}

/// What the walk found: the indexable files and the folders that hold a C# project file.
struct WalkResult {
  std::vector<std::string> files;         ///< relative paths .gitignore and the scope let through, sorted
  std::vector<std::string> project_dirs;  ///< relative folders with a `*.csproj` ("" for the root)
};

bool is_project_file(const fs::path& p) { return lowercase_extension(p) == ".csproj"; }

WalkResult walk(const fs::path& root, const PathScope& scope) {
  WalkResult found;
  GitIgnore ignore;
  std::vector<std::string> stack{""};
  while (!stack.empty()) {
    std::string rel = stack.back();
    stack.pop_back();
    fs::path dir = rel.empty() ? root : root / rel;
    if (fs::exists(dir / ".gitignore")) ignore.add_file(rel, read_file(dir / ".gitignore"));
    std::vector<fs::directory_entry> entries;
    for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path() < b.path(); });
    std::vector<std::string> subdirs;
    bool project = false;
    for (const auto& e : entries) {
      std::string name = e.path().filename().string();
      std::string child = rel.empty() ? name : rel + "/" + name;
      bool is_dir = e.is_directory() && !e.is_symlink();
      if (ignore.ignored(child, is_dir)) continue;
      if (is_dir) {
        if (scope.enters(child)) subdirs.push_back(child);
      } else if (e.is_regular_file() && is_project_file(e.path())) {
        project = true;
      } else if (e.is_regular_file() && !language_of(e.path()).empty() && scope.selects(child)) {
        found.files.push_back(child);
      }
    }
    if (project) found.project_dirs.push_back(rel);
    for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) stack.push_back(*it);
  }
  std::sort(found.files.begin(), found.files.end());
  std::sort(found.project_dirs.begin(), found.project_dirs.end());
  return found;
}

/// The project `path` belongs to: the deepest folder above it with a `*.csproj`, as the compiler
/// sees it (an SDK project compiles the files below its folder); "" when there is none.
std::string project_of(const std::vector<std::string>& project_dirs, const std::string& path) {
  std::string best;
  bool found = false;
  for (const auto& dir : project_dirs) {
    bool inside = dir.empty() ||
                  (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
    if (inside && (!found || dir.size() > best.size())) {
      best = dir;
      found = true;
    }
  }
  return found && best.empty() ? "." : best;
}

int64_t dir_size(const std::string& dir) {
  int64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file()) total += static_cast<int64_t>(e.file_size());
  }
  return total;
}

void draw_progress(std::ostream& out, size_t done, size_t total, int64_t nodes, double seconds) {
  constexpr int kWidth = 30;
  int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
  double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  out << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "] " << done << "/" << total
      << " files  " << nodes << " nodes  " << std::fixed << std::setprecision(0) << rate << " files/s" << std::flush;
}

void check_index_options(const IndexOptions& o) {
  if (o.repository.empty() || o.branch.empty()) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "--repository and --branch are required");
  }
  if (!fs::is_directory(o.src_dir)) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "source directory not found: " + o.src_dir);
  }
  if (o.vector_kind != "flat" && o.vector_kind != "hnsw") {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "vector index kind must be flat or hnsw");
  }
  if (o.max_file_bytes < 1) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                         fmt::format("--max-file-bytes must be at least 1 (got {})", o.max_file_bytes));
  }
}

AclRules load_acl(const IndexOptions& o) {
  if (o.acl_file.empty()) return {};
  if (!fs::exists(o.acl_file)) throw std::invalid_argument("ACL file not found: " + o.acl_file);
  return AclRules::parse(read_file(o.acl_file));
}

/// One indexing pass: the options, the open store and what the pass has changed so far.
struct IndexPass {
  const IndexOptions& options;
  const AclRules& acl;
  IndexStore& store;
  Scope scope;
  std::ostream* progress;
  bool interactive;
  IndexSummary& summary;
  std::vector<int64_t> added;
  std::vector<int64_t> removed;
  std::map<std::string, nlohmann::json> recorded_issues;  ///< per file, from earlier runs
  std::vector<std::string> project_dirs;                  ///< folders with a C# project file
  bool relink = false;  ///< something the linker reads changed without a node being added or removed
};

/// Deletes the files the index knows but the walk no longer found.
void remove_gone_files(IndexPass& pass, const std::map<std::string, std::string>& known,
                       const std::vector<std::string>& files) {
  std::set<std::string> present(files.begin(), files.end());
  for (const auto& [path, hash] : known) {
    if (present.count(path)) continue;
    auto gone = pass.store.delete_file(pass.scope, path);
    pass.removed.insert(pass.removed.end(), gone.begin(), gone.end());
    ++pass.summary.files_removed;
  }
}

/// `path:line:col: warning: message`, or `path: warning: message` for a whole-file issue (line 0).
std::string issue_line(const std::string& path, const ParseIssue& issue) {
  std::string where = escape_control_bytes(path);
  if (issue.line > 0) where += fmt::format(":{}:{}", issue.line, issue.column);
  return where + ": warning: " + escape_control_bytes(issue.message);
}

void report_issues(IndexPass& pass, const std::string& path, const std::vector<ParseIssue>& issues) {
  for (const auto& issue : issues) {
    pass.summary.issues.push_back({path, issue.line, issue.column, escape_control_bytes(issue.message)});
    std::string line = issue_line(path, issue);
    log().debug("index: {}", line);
    if (!pass.progress) continue;
    if (pass.interactive) *pass.progress << "\r\033[K";
    *pass.progress << line << "\n";
  }
}

/// Drops what the index holds of `path`, reports `why` and counts the file as skipped.
void skip_file(IndexPass& pass, const std::string& path, bool known, const std::string& why) {
  if (known) {
    auto gone = pass.store.delete_file(pass.scope, path);
    pass.removed.insert(pass.removed.end(), gone.begin(), gone.end());
  }
  report_issues(pass, path, {{0, 0, why + "; skipped"}});
  ++pass.summary.files_skipped;
}

/// What a worker made of one file, before anything is stored.
struct PreparedFile {
  enum class Outcome { kSkipped, kUnchanged, kIndexed };
  Outcome outcome = Outcome::kSkipped;
  std::string skip_reason;  ///< kSkipped: why, without "; skipped"
  std::string hash;
  AclDecision decision;
  std::string project;      ///< the file's C# project folder (project_of)
  ExtractedFile extracted;  ///< kIndexed: the nodes and issues, the encoding warning first
};

/// The bytes of `path`, or the reason it is skipped (larger than the limit, unreadable).
std::optional<std::string> read_source(const IndexOptions& o, const std::string& path, PreparedFile& prepared) {
  fs::path full = fs::path(o.src_dir) / path;
  std::error_code ec;
  auto size = fs::file_size(full, ec);
  if (!ec && static_cast<int64_t>(size) > o.max_file_bytes) {
    prepared.skip_reason = fmt::format("file is {} bytes, more than --max-file-bytes {}", size, o.max_file_bytes);
    return std::nullopt;
  }
  std::ifstream in(full, std::ios::binary);
  std::ostringstream bytes;
  if (ec || !in || !(bytes << in.rdbuf())) {
    prepared.skip_reason = "cannot read: " + (ec ? ec.message() : std::string("read failed"));
    return std::nullopt;
  }
  return bytes.str();
}

/// `id`, else `id@path`, else `id@path#k` for the first k >= 2 that no node of the file or scope has;
/// the ids in `replaced` (the file's own nodes from the last run) count as free.
std::string unique_node_id(IndexPass& pass, std::set<std::string>& ids_in_file, const std::string& id,
                           const std::string& path, const std::set<std::string>& replaced) {
  auto taken = [&](const std::string& candidate) {
    return ids_in_file.count(candidate) || (!replaced.count(candidate) && pass.store.has_node(pass.scope, candidate));
  };
  std::string unique = id;
  if (taken(unique)) unique = id + "@" + path;
  for (int k = 2; taken(unique); ++k) unique = id + "@" + path + "#" + std::to_string(k);
  ids_in_file.insert(unique);
  return unique;
}

StoredNode stored_node(ExtractedNode& n, const std::string& path, const std::string& language,
                       const AclDecision& decision) {
  StoredNode node;
  node.path = path;
  node.language = language;
  node.kind = n.kind;
  node.name = n.name;
  node.start_line = n.start_line;
  node.end_line = n.end_line;
  node.text = std::move(n.text);
  node.acl_tags = decision.acl_tags;
  node.labels = decision.classification_labels;
  node.metadata = {{"data_type", language == "sql" ? "sql" : "code"}};
  for (const auto& [k, v] : decision.metadata.items()) node.metadata[k] = v;
  node.facts = std::move(n.facts);
  return node;
}

/// The nodes and issues of decoded `source`: an encoding warning first, then the parse issues. An
/// extractor that throws leaves the file without nodes and with that as its issue.
ExtractedFile extract_file(const std::string& language, const SourceText& source) {
  ExtractedFile extracted;
  try {
    extracted = language == "csharp" ? extract_csharp(source.text) : extract_sql(source.text);
  } catch (const std::exception& e) {
    extracted = {};
    extracted.issues.push_back({0, 0, std::string("cannot extract symbols: ") + e.what()});
  }
  if (!source.warning.empty()) extracted.issues.insert(extracted.issues.begin(), {0, 0, source.warning});
  return extracted;
}

/// True when `stored` and `fresh` differ only in their lines (or not at all): the row, its FTS
/// terms and its vector can stay. `also_defined_in` is the linker's, not the file's.
bool same_content(const StoredNode& stored, const StoredNode& fresh) {
  nlohmann::json metadata = stored.metadata;
  if (metadata.is_object()) metadata.erase("also_defined_in");
  return stored.kind == fresh.kind && stored.name == fresh.name && stored.language == fresh.language &&
         stored.text == fresh.text && stored.facts == fresh.facts && metadata == fresh.metadata &&
         stored.acl_tags == fresh.acl_tags && stored.labels == fresh.labels;
}

/// Stores `node` of a new or changed file over `old` (its stored namesakes, by id): a node whose
/// content is unchanged keeps its row and vector, moved to its new lines if need be.
void store_node(IndexPass& pass, const StoredNode& node, std::map<std::string, StoredNode>& old) {
  auto it = old.find(node.id);
  if (it != old.end() && same_content(it->second, node)) {
    if (it->second.start_line != node.start_line || it->second.end_line != node.end_line) {
      pass.store.update_lines(it->second.rowid, node.start_line, node.end_line);
      pass.relink = true;
    }
    old.erase(it);
    return;
  }
  if (it != old.end()) {
    pass.store.delete_node(it->second.rowid);
    pass.removed.push_back(it->second.rowid);
    old.erase(it);
  }
  pass.added.push_back(pass.store.insert_node(pass.scope, node));
}

/// Stores the nodes of one new or changed file with the file's hash, writing only the nodes whose
/// content changed (an edit rewrites the member it touched and the types around it).
void index_file(IndexPass& pass, const std::string& path, bool known, PreparedFile& prepared) {
  ExtractedFile& extracted = prepared.extracted;
  std::string language = language_of(path);
  report_issues(pass, path, extracted.issues);
  nlohmann::json recorded = nlohmann::json::array();
  for (const auto& issue : extracted.issues) {
    recorded.push_back(
        {{"line", issue.line}, {"column", issue.column}, {"message", escape_control_bytes(issue.message)}});
  }
  pass.store.put_file_issues(pass.scope, path, recorded);
  nlohmann::json file_facts = nlohmann::json::object();
  if (!extracted.global_usings.empty()) {
    file_facts["global_usings"] = extracted.global_usings;
    if (!prepared.project.empty()) file_facts["project"] = prepared.project;
  }
  if (pass.store.put_file_facts(pass.scope, path, file_facts)) pass.relink = true;
  std::map<std::string, StoredNode> old;
  std::set<std::string> replaced;
  for (auto& n : known ? pass.store.nodes_of_file(pass.scope, path) : std::vector<StoredNode>{}) {
    replaced.insert(n.id);
    old.emplace(n.id, std::move(n));
  }
  std::set<std::string> ids_in_file;
  for (auto& n : extracted.nodes) {
    // A partial definition (ALTER TABLE) never takes the plain id the definition itself should have.
    bool partial = n.facts.value("partial", false);
    std::string id = unique_node_id(pass, ids_in_file, partial ? n.id + "@" + path : n.id, path, replaced);
    StoredNode node = stored_node(n, path, language, prepared.decision);
    node.id = std::move(id);
    if (language == "csharp" && !prepared.project.empty()) node.facts["project"] = prepared.project;
    store_node(pass, node, old);
  }
  for (const auto& [id, gone] : old) {
    pass.store.delete_node(gone.rowid);
    pass.removed.push_back(gone.rowid);
  }
  pass.store.put_file(pass.scope, path, prepared.hash, language);
  ++pass.summary.files_indexed;
}

/// Adds the issues recorded for unchanged file `path` to the summary (not printed again).
void count_recorded_issues(IndexPass& pass, const std::string& path) {
  auto it = pass.recorded_issues.find(path);
  if (it == pass.recorded_issues.end() || !it->second.is_array()) return;
  for (const nlohmann::json& issue : it->second) {
    pass.summary.issues.push_back({path, issue.value("line", 0), issue.value("column", 0), issue.value("message", "")});
    ++pass.summary.issues_unchanged;
  }
}

/// Reads, hashes, decodes and parses `path` without touching the store (runs on a worker).
PreparedFile prepare_file(const IndexOptions& o, const AclRules& acl, const std::string& path, std::string project,
                          const std::string* known_hash) {
  PreparedFile prepared;
  auto bytes = read_source(o, path, prepared);
  if (!bytes) return prepared;
  prepared.decision = acl.decide(path, nlohmann::json::object({{kRoleKey, node_role(path, *bytes)}}));
  prepared.project = std::move(project);
  // The project is part of the hash: a project file added or moved re-reads the files it takes.
  prepared.hash = content_hash(*bytes, prepared.decision.fingerprint() + '\0' + prepared.project);
  if (known_hash && *known_hash == prepared.hash) {
    prepared.outcome = PreparedFile::Outcome::kUnchanged;
    return prepared;
  }
  SourceText source = decode_source(*bytes);
  if (source.binary()) {
    prepared.skip_reason = source.warning;
    return prepared;
  }
  prepared.extracted = extract_file(language_of(path), source);
  prepared.outcome = PreparedFile::Outcome::kIndexed;
  return prepared;
}

/// Stores what `prepare_file` made of `path` (runs on the indexing thread, in file order).
void store_file(IndexPass& pass, const std::string& path, bool known, PreparedFile& prepared) {
  switch (prepared.outcome) {
    case PreparedFile::Outcome::kSkipped: return skip_file(pass, path, known, prepared.skip_reason);
    case PreparedFile::Outcome::kUnchanged: ++pass.summary.files_unchanged; return count_recorded_issues(pass, path);
    case PreparedFile::Outcome::kIndexed: return index_file(pass, path, known, prepared);
  }
}

/// Indexes every new or changed file of `files`, parsing on worker threads and storing in order,
/// drawing the progress bar as it goes.
void scan_files(IndexPass& pass, const std::vector<std::string>& files, const std::map<std::string, std::string>& known,
                const std::function<double()>& elapsed) {
  constexpr size_t kLead = 64;  // files parsed ahead of the store: bounds the memory held
  std::vector<PreparedFile> prepared(files.size());
  auto work = [&](size_t i) {
    auto it = known.find(files[i]);
    try {
      prepared[i] = prepare_file(pass.options, pass.acl, files[i], project_of(pass.project_dirs, files[i]),
                                 it == known.end() ? nullptr : &it->second);
    } catch (const std::exception& e) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable,
                           fmt::format("{}: cannot read it: {}", escape_control_bytes(files[i]), e.what()));
    }
  };
  auto consume = [&](size_t i) {
    try {
      store_file(pass, files[i], known.count(files[i]) > 0, prepared[i]);
    } catch (const RetrievalError&) {
      throw;
    } catch (const std::exception& e) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable,
                           fmt::format("{}: cannot store its nodes: {}", escape_control_bytes(files[i]), e.what()));
    }
    prepared[i] = {};
    if (pass.progress && pass.interactive && (i % 25 == 0 || i + 1 == files.size())) {
      draw_progress(*pass.progress, i + 1, files.size(), static_cast<int64_t>(pass.added.size()), elapsed());
    }
  };
  run_ordered(files.size(), parse_threads(), kLead, work, consume);
  if (pass.progress && pass.interactive) *pass.progress << "\n";
}

/// True when the run found nothing to change: no file added, changed or removed, and the vectors
/// of the named index exist (a no-change re-index then writes nothing but the scope's sequence).
bool nothing_changed(IndexPass& pass) {
  return pass.added.empty() && pass.removed.empty() && !pass.relink && pass.summary.files_removed == 0 &&
         pass.store.index_record(pass.scope.index_name) &&
         fs::exists(IndexStore::vector_path(pass.options.index_dir, pass.scope.index_name));
}

/// Relinks the scope's graph and brings its vectors up to date, unless nothing changed; sets
/// `base_written` once the FAISS base file may have changed.
void link_and_embed(IndexPass& pass, IEmbedder& embedder, bool& base_written) {
  pass.store.touch_scope(pass.scope);
  if (nothing_changed(pass)) {
    check_embedder_matches(pass.store, pass.scope.index_name, embedder);
    return;
  }
  auto nodes = pass.store.nodes_for_linking(pass.scope);
  auto canonical = choose_canonical_sql(nodes);
  pass.store.sync_duplicates(pass.scope, canonical.duplicate_of, canonical.other_paths);
  pass.store.sync_edges(pass.scope, link_graph(nodes, std::move(canonical), pass.store.global_usings(pass.scope)));
  auto on_vectors = [&](int64_t done, int64_t total) {
    if (pass.progress && pass.interactive) {
      *pass.progress << "\rembedding " << done << "/" << total << " nodes" << std::flush;
    }
  };
  auto vs = sync_vectors(pass.store, pass.scope.index_name, embedder, pass.options.vector_kind, pass.added,
                         pass.removed, on_vectors, &base_written);
  if (pass.progress && pass.interactive && vs.embedded > 0) *pass.progress << "\n";
  pass.summary.vectors_embedded = vs.embedded;
}

}  // namespace

IndexSummary run_local_indexer(const IndexOptions& o, std::ostream* progress, bool interactive) {
  auto started = std::chrono::steady_clock::now();
  std::function<double()> elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  check_index_options(o);
  AclRules acl = load_acl(o);
  auto embedder = make_embedder(o.embedder);

  IndexSummary summary;
  auto walked = walk(o.src_dir, PathScope(o.include_globs, o.exclude_globs));
  const auto& files = walked.files;
  summary.files_seen = static_cast<int64_t>(files.size());

  IndexStore store(o.index_dir, true);
  IndexPass pass{o,
                 acl,
                 store,
                 {o.active_index.empty() ? "default" : o.active_index, o.repository, o.branch, o.snapshot},
                 progress,
                 interactive,
                 summary,
                 {},
                 {},
                 {},
                 walked.project_dirs};
  store.begin();
  bool base_written = false;
  try {
    auto known = store.file_hashes(pass.scope);
    pass.recorded_issues = store.file_issues(pass.scope);
    remove_gone_files(pass, known, files);
    scan_files(pass, files, known, elapsed);
    summary.nodes_added = static_cast<int64_t>(pass.added.size());
    summary.nodes_removed = static_cast<int64_t>(pass.removed.size());
    link_and_embed(pass, *embedder, base_written);
    store.commit();
    store.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch (...) {
    store.rollback();
    // The FAISS file may now disagree with the rolled-back rows: drop it so the next run rebuilds it.
    if (base_written) {
      const std::string vectors = IndexStore::vector_path(o.index_dir, pass.scope.index_name);
      std::error_code ec;
      fs::remove(vectors, ec);
      log().warn("index update rolled back; removed {} so the next index run rebuilds it", vectors);
    }
    throw;
  }
  summary.nodes_by_kind = store.node_counts(pass.scope);
  summary.edges_by_type = store.edge_counts(pass.scope);
  summary.seconds = elapsed();
  summary.index_bytes = dir_size(o.index_dir);
  log().info("index {}: {} files indexed, {} unchanged, {} removed, {} parse issues in {:.1f}s", o.index_dir,
             summary.files_indexed, summary.files_unchanged, summary.files_removed, summary.issues.size(),
             summary.seconds);
  return summary;
}

}  // namespace attractor::retrieval
