#pragma once
/// \file
/// FAISS vector storage of a named index (`DIR/<index>.faiss`): inner product over L2-normalized
/// vectors (= cosine), keyed by node rowid. "flat" is exact search (the default); "hnsw" is the
/// approximate option for large indexes (HNSW32). Removal from HNSW rebuilds the graph.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace faiss {
struct Index;
}

namespace attractor::retrieval {

class VectorIndex {
 public:
  /// An empty index of `dimension` and kind "flat" or "hnsw".
  VectorIndex(int dimension, const std::string& kind);
  /// Reads a saved index; throws RetrievalError(kUnavailable).
  static VectorIndex load(const std::string& path);
  ~VectorIndex();
  VectorIndex(VectorIndex&&) noexcept;
  VectorIndex& operator=(VectorIndex&&) noexcept;

  int dimension() const { return dimension_; }
  const std::string& kind() const { return kind_; }
  int64_t size() const;
  /// The ids held, in insertion order.
  std::vector<int64_t> ids() const;

  /// Adds `ids.size()` vectors laid out row-major in `vectors` (each normalized by the caller).
  void add(const std::vector<int64_t>& ids, const std::vector<float>& vectors);
  /// Removes the given ids (missing ids are ignored).
  void remove(const std::vector<int64_t>& ids);
  /// The `k` nearest ids with their inner-product scores, best first; with `allowed`, only those ids
  /// are considered (FAISS IDSelector, so the search stays exact for "flat").
  std::vector<std::pair<int64_t, float>> search(const std::vector<float>& query, int k,
                                                const std::vector<int64_t>* allowed) const;
  /// Writes atomically (temp file + rename).
  void save(const std::string& path) const;

 private:
  VectorIndex() = default;
  int dimension_ = 0;
  std::string kind_;
  std::unique_ptr<faiss::Index> index_;
};

/// Scales `v` to unit length (no-op for the zero vector).
void normalize(std::vector<float>& v);

}  // namespace attractor::retrieval
