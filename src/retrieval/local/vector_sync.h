#pragma once
/// \file
/// The vectors of a named index: a FAISS base file (`DIR/<index>.faiss`) plus the vectors added
/// since it was written, kept in the SQLite table `vector_delta` (docs/retrieval.md section 8).
///
/// Invariants:
///  1. Every node rowid of the named index has exactly one vector, in the base or in the delta.
///  2. The delta holds only live rowids; the base may also hold vectors of deleted nodes ("stale").
///     Node rowids are never reused (AUTOINCREMENT), so a stale vector can never be found through
///     a visible node; readers drop them on load.
///  3. The base is rewritten only when the delta plus the stale vectors exceed a tenth of it, so a
///     run that changes one file writes that file's vectors, not the whole index.
///  4. The delta rows and `base_vectors` commit with the nodes; the base file is written before the
///     commit, and a run that rolls back after writing it removes it (the next run rebuilds it).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "retrieval/local/embedder.h"
#include "retrieval/local/index_store.h"
#include "retrieval/local/vector_index.h"

namespace attractor::retrieval {

struct VectorSyncStats {
  int64_t embedded = 0;  ///< vectors computed in this run
  int64_t removed = 0;   ///< vectors dropped for deleted or changed nodes
  int64_t total = 0;     ///< live vectors afterwards
};

/// Throws RetrievalError(kInvalidArgument) when the named index was built with another embedding
/// provider, model or dimension than `embedder`.
void check_embedder_matches(IndexStore& store, const std::string& index_name, const IEmbedder& embedder);

/// Brings the vectors of `index_name` in step with its nodes after an indexing run: embeds `added`
/// into the delta, drops `removed`, and rewrites the base when invariant 3 asks for it or when there
/// is no base yet (then every node of the named index is embedded). Records the provider in the
/// `indexes` table. `on_progress(done, total)` is called after each batch. `*base_written` (when
/// given) is set just before the base file is replaced, so a caller that catches a later throw
/// knows the file may disagree with rolled-back rows.
VectorSyncStats sync_vectors(IndexStore& store, const std::string& index_name, IEmbedder& embedder,
                             const std::string& vector_kind, const std::vector<int64_t>& added,
                             const std::vector<int64_t>& removed,
                             const std::function<void(int64_t, int64_t)>& on_progress = {},
                             bool* base_written = nullptr);

/// The searchable vectors of `index_name`: the base file with the delta added and, for "flat",
/// the stale vectors removed. Throws RetrievalError(kUnavailable) when the base cannot be read.
VectorIndex load_vectors(IndexStore& store, const std::string& index_name);

}  // namespace attractor::retrieval
