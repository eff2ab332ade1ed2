#pragma once
/// \file
/// The boundary between attractor and its retrieval module (`libattractor_retrieval.so`, built from
/// src/retrieval/module): the one `extern "C"` symbol the module exports and the versioned table
/// of functions it returns. The loader (retrieval_module.h) reads `abi_version` and `layout` before
/// touching anything else, so both must stay the first two members in every version.
///
/// C++ values (strings, JSON, unique_ptr, exceptions) cross this boundary: the executable and the
/// module come from one build, use the same shared libstdc++ and libgcc_s, and the version check
/// refuses a module from another build of the contract.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "retrieval/backend.h"
#include "retrieval/indexer.h"

namespace attractor::retrieval {

/// Bump whenever backend.h, indexer.h, embedder_spec.h or RetrievalModuleTable change in a way that
/// a module built before the change could misread.
inline constexpr std::uint32_t kRetrievalModuleAbiVersion = 1;

/// The module's file name, looked for next to the executable and in ../lib/attractor/.
inline constexpr const char* kRetrievalModuleFileName = "libattractor_retrieval.so";

/// The name of the module's entry point, a RetrievalModuleEntry.
inline constexpr const char* kRetrievalModuleEntryName = "attractor_retrieval_module";

/// Sizes of the values that cross the boundary, folded into one number: a cheap guard against a
/// module whose headers differ without a version bump (a different standard library, a new field).
constexpr std::uint64_t retrieval_module_layout() {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t size : {sizeof(SearchRequest), sizeof(SearchResponse), sizeof(ExpandRequest),
                             sizeof(ExpandResult), sizeof(NodeInfo), sizeof(IndexOptions), sizeof(IndexSummary),
                             sizeof(EmbedderSpec), sizeof(RetrievalError), sizeof(std::string)}) {
    h = (h ^ size) * 1099511628211ull;
  }
  return h;
}

/// What the module's entry point returns: the functions behind make_retrieval_backend and
/// index_repository. Static data of the module; never freed.
struct RetrievalModuleTable {
  std::uint32_t abi_version;  ///< kRetrievalModuleAbiVersion of the build that made the module
  std::uint64_t layout;       ///< retrieval_module_layout() of that build
  /// make_retrieval_backend(kind, index_dir).
  std::unique_ptr<IRetrievalBackend> (*make_backend)(std::string_view kind, const std::string& index_dir);
  /// index_repository(options, progress, interactive).
  IndexSummary (*index_repository)(const IndexOptions& options, std::ostream* progress, bool interactive);
};

/// Signature of the entry point: `extern "C" const RetrievalModuleTable* attractor_retrieval_module()`.
using RetrievalModuleEntry = const RetrievalModuleTable* (*)();

}  // namespace attractor::retrieval
