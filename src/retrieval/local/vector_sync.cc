#include "retrieval/local/vector_sync.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <set>

namespace attractor::retrieval {

namespace {

constexpr const char* kDeltaSchema =
    "CREATE TABLE IF NOT EXISTS vector_delta(index_name TEXT NOT NULL, node_rowid INTEGER NOT NULL, "
    "vector BLOB NOT NULL, PRIMARY KEY(index_name, node_rowid)) WITHOUT ROWID";

/// The base is rewritten when the delta plus the stale vectors exceed 1/kCompactShare of it.
constexpr int64_t kCompactShare = 10;

std::string base_key(const std::string& index_name) { return "base_vectors:" + index_name; }

std::optional<int64_t> base_count(IndexStore& store, const std::string& index_name) {
  auto s = store.db().prepare("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?");
  s.bind(1, base_key(index_name));
  if (!s.step()) return std::nullopt;
  return s.integer(0);
}

void set_base_count(IndexStore& store, const std::string& index_name, int64_t n) {
  auto s = store.db().prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
  s.bind(1, base_key(index_name)).bind(2, std::to_string(n)).run();
}

bool has_delta_table(IndexStore& store) {
  auto s = store.db().prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vector_delta'");
  return s.step();
}

void drop_delta(IndexStore& store, const std::string& index_name, const std::vector<int64_t>& rowids) {
  auto s = store.db().prepare("DELETE FROM vector_delta WHERE index_name = ? AND node_rowid = ?");
  for (auto r : rowids) {
    s.bind(1, index_name).bind(2, r).run();
    s.reset();
  }
}

void clear_delta(IndexStore& store, const std::string& index_name) {
  store.db().prepare("DELETE FROM vector_delta WHERE index_name = ?").bind(1, index_name).run();
}

int64_t delta_count(IndexStore& store, const std::string& index_name) {
  auto s = store.db().prepare("SELECT COUNT(*) FROM vector_delta WHERE index_name = ?");
  s.bind(1, index_name);
  return s.step() ? s.integer(0) : 0;
}

/// Adds every delta vector of `index_name` to `index`.
void add_delta(IndexStore& store, const std::string& index_name, VectorIndex& index) {
  auto s = store.db().prepare("SELECT node_rowid, vector FROM vector_delta WHERE index_name = ? ORDER BY node_rowid");
  s.bind(1, index_name);
  std::vector<int64_t> ids;
  std::vector<float> flat;
  const size_t width = static_cast<size_t>(index.dimension()) * sizeof(float);
  while (s.step()) {
    std::string bytes = s.blob(1);
    if (bytes.size() != width) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable,
                           "vector_delta row " + std::to_string(s.integer(0)) + " has the wrong dimension");
    }
    ids.push_back(s.integer(0));
    size_t at = flat.size();
    flat.resize(at + static_cast<size_t>(index.dimension()));
    std::memcpy(flat.data() + at, bytes.data(), width);
  }
  index.add(ids, flat);
}

/// Embeds `rowids` in batches and hands each batch (ids, row-major vectors) to `sink`.
int64_t embed_rows(IndexStore& store, IEmbedder& embedder, const std::vector<int64_t>& rowids, int& dimension,
                   const std::function<void(const std::vector<int64_t>&, const std::vector<float>&)>& sink,
                   const std::function<void(int64_t, int64_t)>& on_progress) {
  constexpr size_t kBatch = 256;
  int64_t done = 0;
  for (size_t start = 0; start < rowids.size(); start += kBatch) {
    std::vector<int64_t> batch(rowids.begin() + static_cast<std::ptrdiff_t>(start),
                               rowids.begin() + static_cast<std::ptrdiff_t>(std::min(rowids.size(), start + kBatch)));
    std::vector<int64_t> ids;
    std::vector<std::string> texts;
    for (auto& [rowid, text] : store.embedding_inputs(batch)) {
      ids.push_back(rowid);
      texts.push_back(std::move(text));
    }
    auto vectors = embedder.embed(texts);
    if (vectors.size() != ids.size()) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable, "embedder returned the wrong number of vectors");
    }
    if (dimension <= 0 && !vectors.empty()) dimension = static_cast<int>(vectors[0].size());
    std::vector<float> flat;
    flat.reserve(ids.size() * static_cast<size_t>(std::max(dimension, 0)));
    for (const auto& v : vectors) {
      if (static_cast<int>(v.size()) != dimension) {
        throw RetrievalError(RetrievalError::Kind::kUnavailable, "embedder returned a vector of the wrong dimension");
      }
      flat.insert(flat.end(), v.begin(), v.end());
    }
    sink(ids, flat);
    done += static_cast<int64_t>(ids.size());
    if (on_progress) on_progress(done, static_cast<int64_t>(rowids.size()));
  }
  return done;
}

void put_delta(IndexStore& store, const std::string& index_name, int dimension, const std::vector<int64_t>& ids,
               const std::vector<float>& flat) {
  auto s = store.db().prepare("INSERT OR REPLACE INTO vector_delta(index_name, node_rowid, vector) VALUES (?,?,?)");
  for (size_t i = 0; i < ids.size(); ++i) {
    s.bind(1, index_name).bind(2, ids[i]);
    s.bind_blob(3, flat.data() + i * static_cast<size_t>(dimension), static_cast<size_t>(dimension) * sizeof(float));
    s.run();
    s.reset();
  }
}

/// The ids of `index` that are not in `live` (sorted).
std::vector<int64_t> stale_ids(const VectorIndex& index, const std::vector<int64_t>& live) {
  std::vector<int64_t> stale;
  for (auto id : index.ids()) {
    if (!std::binary_search(live.begin(), live.end(), id)) stale.push_back(id);
  }
  return stale;
}

/// The rowids of `live` (sorted) that `index` has no vector for.
std::vector<int64_t> missing_ids(const VectorIndex& index, const std::vector<int64_t>& live) {
  auto have = index.ids();
  std::sort(have.begin(), have.end());
  std::vector<int64_t> missing;
  std::set_difference(live.begin(), live.end(), have.begin(), have.end(), std::back_inserter(missing));
  return missing;
}

/// Throws when `record` was written by another provider, model or dimension than `info`.
void check_record(const std::optional<IndexRecord>& record, const std::string& index_name, const EmbedderInfo& info) {
  if (record && (record->provider != info.provider || record->model != info.model ||
                 (info.dimension != 0 && info.dimension != record->dimension))) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                         "named index '" + index_name + "' was built with embeddings " + record->provider + "/" +
                             record->model + " (dimension " + std::to_string(record->dimension) +
                             "); cannot add vectors from " + info.provider + "/" + info.model +
                             " (use another index directory or --active-index)");
  }
}

}  // namespace

void check_embedder_matches(IndexStore& store, const std::string& index_name, const IEmbedder& embedder) {
  check_record(store.index_record(index_name), index_name, embedder.info());
}

VectorSyncStats sync_vectors(IndexStore& store, const std::string& index_name, IEmbedder& embedder,
                             const std::string& vector_kind, const std::vector<int64_t>& added,
                             const std::vector<int64_t>& removed,
                             const std::function<void(int64_t, int64_t)>& on_progress, bool* base_written) {
  const auto info = embedder.info();
  const auto record = store.index_record(index_name);
  check_record(record, index_name, info);
  store.db().exec(kDeltaSchema);
  const std::string path = IndexStore::vector_path(store.dir(), index_name);
  const std::string kind = record ? record->vector_kind : vector_kind;
  int dimension = record ? record->dimension : info.dimension;
  const std::vector<int64_t> live = store.index_rowids(index_name);
  VectorSyncStats stats;
  stats.total = static_cast<int64_t>(live.size());
  auto to_delta = [&](const std::vector<int64_t>& ids, const std::vector<float>& flat) {
    put_delta(store, index_name, dimension, ids, flat);
  };
  std::unique_ptr<VectorIndex> index;
  if (record && std::filesystem::exists(path)) {
    drop_delta(store, index_name, removed);
    stats.removed = static_cast<int64_t>(removed.size());
    stats.embedded = embed_rows(store, embedder, added, dimension, to_delta, on_progress);
    const auto base = base_count(store, index_name);
    const int64_t delta = delta_count(store, index_name);
    if (base && (delta + (*base + delta - stats.total)) * kCompactShare <= *base) {
      store.put_index_record({index_name, info.provider, info.model, dimension, kind});
      return stats;
    }
    index = std::make_unique<VectorIndex>(VectorIndex::load(path));
    index->remove(stale_ids(*index, live));
    add_delta(store, index_name, *index);
    stats.embedded += embed_rows(
        store, embedder, missing_ids(*index, live), dimension,
        [&](const std::vector<int64_t>& ids, const std::vector<float>& flat) { index->add(ids, flat); }, on_progress);
  } else {
    auto to_index = [&](const std::vector<int64_t>& ids, const std::vector<float>& flat) {
      if (!index) index = std::make_unique<VectorIndex>(dimension, kind);
      index->add(ids, flat);
    };
    stats.embedded = embed_rows(store, embedder, live, dimension, to_index, on_progress);
    if (!index) {
      dimension = embedder.info().dimension;
      if (dimension <= 0) return stats;  // nothing to embed and the dimension is still unknown
      index = std::make_unique<VectorIndex>(dimension, kind);
    }
  }
  if (base_written) *base_written = true;
  index->save(path);
  clear_delta(store, index_name);
  set_base_count(store, index_name, index->size());
  store.put_index_record({index_name, info.provider, info.model, dimension, kind});
  return stats;
}

VectorIndex load_vectors(IndexStore& store, const std::string& index_name) {
  VectorIndex index = VectorIndex::load(IndexStore::vector_path(store.dir(), index_name));
  if (has_delta_table(store)) add_delta(store, index_name, index);
  if (index.kind() == "flat") index.remove(stale_ids(index, store.index_rowids(index_name)));
  return index;
}

}  // namespace attractor::retrieval
