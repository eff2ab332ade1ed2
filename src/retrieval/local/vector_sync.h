#pragma once
/// \file
/// Keeps a named index's FAISS file in step with the SQLite nodes after an indexing run.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "retrieval/local/embedder.h"
#include "retrieval/local/index_store.h"

namespace attractor::retrieval {

struct VectorSyncStats {
  int64_t embedded = 0;  ///< vectors computed in this run
  int64_t removed = 0;   ///< vectors dropped for deleted or changed nodes
  int64_t total = 0;     ///< vectors in the index afterwards
};

/// Removes `removed` rowids from `DIR/<index_name>.faiss`, embeds and adds `added`, records the
/// provider in the `indexes` table and saves the file. When the file does not exist yet, every node
/// of the named index is embedded. Throws RetrievalError(kInvalidArgument) when the index was built
/// with another provider/model/dimension. `on_progress(done, total)` is called after each batch.
VectorSyncStats sync_vectors(IndexStore& store, const std::string& index_name, IEmbedder& embedder,
                             const std::string& vector_kind, const std::vector<int64_t>& added,
                             const std::vector<int64_t>& removed,
                             const std::function<void(int64_t, int64_t)>& on_progress = {});

}  // namespace attractor::retrieval
