#include "retrieval/local/vector_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/index_io.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unordered_set>

#include "retrieval/backend.h"

namespace attractor::retrieval {

namespace {

std::unique_ptr<faiss::Index> make_inner(int dimension, const std::string& kind) {
  if (kind == "flat") return std::make_unique<faiss::IndexFlatIP>(dimension);
  if (kind == "hnsw") {
    auto h = std::make_unique<faiss::IndexHNSWFlat>(dimension, 32, faiss::METRIC_INNER_PRODUCT);
    h->hnsw.efConstruction = 80;
    h->hnsw.efSearch = 128;
    return h;
  }
  throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "unknown vector index kind '" + kind + "'");
}

std::unique_ptr<faiss::Index> make_index(int dimension, const std::string& kind) {
  auto map = std::make_unique<faiss::IndexIDMap2>(make_inner(dimension, kind).release());
  map->own_fields = true;
  return map;
}

}  // namespace

VectorIndex::VectorIndex(int dimension, const std::string& kind)
    : dimension_(dimension), kind_(kind), index_(make_index(dimension, kind)) {}

VectorIndex::~VectorIndex() = default;
VectorIndex::VectorIndex(VectorIndex&&) noexcept = default;
VectorIndex& VectorIndex::operator=(VectorIndex&&) noexcept = default;

VectorIndex VectorIndex::load(const std::string& path) {
  VectorIndex v;
  try {
    v.index_.reset(faiss::read_index(path.c_str()));
  } catch (const std::exception& e) {
    throw RetrievalError(RetrievalError::Kind::kUnavailable, "cannot read vector index " + path + ": " + e.what());
  }
  auto* map = dynamic_cast<faiss::IndexIDMap2*>(v.index_.get());
  if (!map) throw RetrievalError(RetrievalError::Kind::kUnavailable, "unexpected vector index type in " + path);
  v.dimension_ = static_cast<int>(map->d);
  v.kind_ = dynamic_cast<faiss::IndexHNSW*>(map->index) ? "hnsw" : "flat";
  return v;
}

int64_t VectorIndex::size() const { return index_->ntotal; }

std::vector<int64_t> VectorIndex::ids() const {
  const auto& map = static_cast<const faiss::IndexIDMap2*>(index_.get())->id_map;
  return {map.begin(), map.end()};
}

void VectorIndex::add(const std::vector<int64_t>& ids, const std::vector<float>& vectors) {
  if (ids.empty()) return;
  if (vectors.size() != ids.size() * static_cast<size_t>(dimension_)) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "vector count does not match ids");
  }
  std::vector<faiss::Index::idx_t> fids(ids.begin(), ids.end());
  index_->add_with_ids(static_cast<faiss::Index::idx_t>(ids.size()), vectors.data(), fids.data());
}

void VectorIndex::remove(const std::vector<int64_t>& ids) {
  if (ids.empty() || index_->ntotal == 0) return;
  std::vector<faiss::Index::idx_t> fids(ids.begin(), ids.end());
  if (kind_ == "flat") {
    faiss::IDSelectorBatch sel(fids.size(), fids.data());
    index_->remove_ids(sel);
    return;
  }
  auto* map = static_cast<faiss::IndexIDMap2*>(index_.get());
  std::unordered_set<faiss::Index::idx_t> gone(fids.begin(), fids.end());
  std::vector<int64_t> keep_ids;
  std::vector<float> keep_vectors;
  std::vector<float> buf(dimension_);
  for (size_t i = 0; i < map->id_map.size(); ++i) {
    auto id = map->id_map[i];
    if (gone.count(id)) continue;
    map->index->reconstruct(static_cast<faiss::Index::idx_t>(i), buf.data());
    keep_ids.push_back(id);
    keep_vectors.insert(keep_vectors.end(), buf.begin(), buf.end());
  }
  index_ = make_index(dimension_, kind_);
  add(keep_ids, keep_vectors);
}

std::vector<std::pair<int64_t, float>> VectorIndex::search(const std::vector<float>& query, int k,
                                                           const std::vector<int64_t>* allowed) const {
  std::vector<std::pair<int64_t, float>> out;
  if (k <= 0 || index_->ntotal == 0 || (allowed && allowed->empty())) return out;
  if (static_cast<int>(query.size()) != dimension_) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "query vector has the wrong dimension");
  }
  k = static_cast<int>(std::min<int64_t>(k, allowed ? static_cast<int64_t>(allowed->size()) : index_->ntotal));
  std::vector<float> distances(k);
  std::vector<faiss::Index::idx_t> labels(k);
  std::unique_ptr<faiss::IDSelectorBatch> sel;
  faiss::SearchParametersHNSW hnsw_params;
  faiss::SearchParameters flat_params;
  faiss::SearchParameters* params = nullptr;
  auto* map = static_cast<faiss::IndexIDMap2*>(index_.get());
  if (allowed) {
    std::vector<faiss::Index::idx_t> positions;
    positions.reserve(allowed->size());
    for (auto id : *allowed) {
      auto it = map->rev_map.find(id);
      if (it != map->rev_map.end()) positions.push_back(it->second);
    }
    if (positions.empty()) return out;
    k = std::min<int>(k, static_cast<int>(positions.size()));
    sel = std::make_unique<faiss::IDSelectorBatch>(positions.size(), positions.data());
    if (kind_ != "hnsw") {
      flat_params.sel = sel.get();
      params = &flat_params;
    }
  }
  if (kind_ == "hnsw") {
    hnsw_params.sel = sel.get();
    hnsw_params.efSearch = std::max(128, 4 * k);
    params = &hnsw_params;
  }
  map->index->search(1, query.data(), k, distances.data(), labels.data(), params);
  for (int i = 0; i < k; ++i) {
    if (labels[i] >= 0) out.emplace_back(map->id_map[labels[i]], distances[i]);
  }
  return out;
}

void VectorIndex::save(const std::string& path) const {
  std::string tmp = path + ".tmp";
  try {
    faiss::write_index(index_.get(), tmp.c_str());
  } catch (const std::exception& e) {
    throw RetrievalError(RetrievalError::Kind::kUnavailable, "cannot write vector index " + path + ": " + e.what());
  }
  std::filesystem::rename(tmp, path);
}

void normalize(std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  if (sum <= 0) return;
  float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (auto& x : v) x *= inv;
}

}  // namespace attractor::retrieval
