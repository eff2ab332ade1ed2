#include "retrieval/local/vector_sync.h"

#include <filesystem>
#include <memory>
#include <set>

#include "retrieval/local/vector_index.h"

namespace attractor::retrieval {

VectorSyncStats sync_vectors(IndexStore& store, const std::string& index_name, IEmbedder& embedder,
                             const std::string& vector_kind, const std::vector<int64_t>& added,
                             const std::vector<int64_t>& removed,
                             const std::function<void(int64_t, int64_t)>& on_progress) {
  auto info = embedder.info();
  auto record = store.index_record(index_name);
  if (record && (record->provider != info.provider || record->model != info.model ||
                 (info.dimension != 0 && info.dimension != record->dimension))) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                         "named index '" + index_name + "' was built with embeddings " + record->provider + "/" +
                             record->model + " (dimension " + std::to_string(record->dimension) +
                             "); cannot add vectors from " + info.provider + "/" + info.model +
                             " (use another index directory or --active-index)");
  }
  std::string path = IndexStore::vector_path(store.dir(), index_name);
  std::unique_ptr<VectorIndex> index;
  std::vector<int64_t> to_embed = added;
  VectorSyncStats stats;
  if (record && std::filesystem::exists(path)) {
    index = std::make_unique<VectorIndex>(VectorIndex::load(path));
    index->remove(removed);
    stats.removed = static_cast<int64_t>(removed.size());
  } else {
    to_embed = store.index_rowids(index_name);
  }
  std::string kind = record ? record->vector_kind : vector_kind;
  int dimension = record ? record->dimension : info.dimension;
  if (index == nullptr && dimension > 0) index = std::make_unique<VectorIndex>(dimension, kind);

  constexpr size_t kBatch = 256;
  for (size_t start = 0; start < to_embed.size(); start += kBatch) {
    std::vector<int64_t> batch(
        to_embed.begin() + static_cast<std::ptrdiff_t>(start),
        to_embed.begin() + static_cast<std::ptrdiff_t>(std::min(to_embed.size(), start + kBatch)));
    auto inputs = store.embedding_inputs(batch);
    std::vector<std::string> texts;
    std::vector<int64_t> ids;
    for (auto& [rowid, text] : inputs) {
      ids.push_back(rowid);
      texts.push_back(std::move(text));
    }
    auto vectors = embedder.embed(texts);
    if (vectors.size() != ids.size()) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable, "embedder returned the wrong number of vectors");
    }
    if (!index) {
      dimension = vectors.empty() ? embedder.info().dimension : static_cast<int>(vectors[0].size());
      index = std::make_unique<VectorIndex>(dimension, kind);
    }
    std::vector<float> flat;
    flat.reserve(ids.size() * static_cast<size_t>(dimension));
    for (const auto& v : vectors) {
      if (static_cast<int>(v.size()) != dimension) {
        throw RetrievalError(RetrievalError::Kind::kUnavailable, "embedder returned a vector of the wrong dimension");
      }
      flat.insert(flat.end(), v.begin(), v.end());
    }
    index->add(ids, flat);
    stats.embedded += static_cast<int64_t>(ids.size());
    if (on_progress) on_progress(stats.embedded, static_cast<int64_t>(to_embed.size()));
  }
  if (!index) {
    dimension = embedder.info().dimension;
    if (dimension <= 0) return stats;  // nothing to embed and the dimension is still unknown
    index = std::make_unique<VectorIndex>(dimension, kind);
  }
  index->save(path);
  store.put_index_record({index_name, info.provider, info.model, dimension, kind});
  stats.total = index->size();
  return stats;
}

}  // namespace attractor::retrieval
