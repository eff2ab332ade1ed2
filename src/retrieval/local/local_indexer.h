#pragma once
/// \file
/// The indexer behind `attractor index` (retrieval/indexer.h describes what it does): walks a source
/// tree (respecting .gitignore), extracts C# and SQL symbols, links the unified graph, applies the
/// ACL file and writes the local index (SQLite + FAISS). The retrieval module exports it; code
/// outside the module calls retrieval::index_repository instead.

#include <ostream>

#include "retrieval/indexer.h"

namespace attractor::retrieval {

/// Indexes `options.src_dir` in this process (see index_repository for the contract).
IndexSummary run_local_indexer(const IndexOptions& options, std::ostream* progress = nullptr, bool interactive = false);

}  // namespace attractor::retrieval
