#pragma once
/// \file
/// The boundary between attractor and its retrieval module (`libattractor_retrieval.so`, built from
/// src/retrieval/module): the one `extern "C"` symbol the module exports and the versioned table
/// of functions it returns. The loader (retrieval_module.h, over attractor/base/module_loader.h)
/// reads the table's ModuleHeader (ABI version and layout) before touching anything else, so it
/// must stay the first member in every version.
///
/// C++ values (strings, JSON, unique_ptr, exceptions) cross this boundary: the executable and the
/// module come from one build, share the heap and the unwinder, and the version check refuses a
/// module from another build of the contract (docs/decisions.md, "The binary links libstdc++
/// statically", for what the binary's own copy of libstdc++ means here).

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "attractor/base/log.h"
#include "attractor/base/module_loader.h"
#include "retrieval/backend.h"
#include "retrieval/indexer.h"

namespace attractor::retrieval {

/// Bump whenever backend.h, indexer.h, embedder_spec.h or RetrievalModuleTable change in a way that
/// a module built before the change could misread.
inline constexpr std::uint32_t kRetrievalModuleAbiVersion = 4;

/// The module's file name, looked for next to the executable and in ../lib/attractor/.
inline constexpr const char* kRetrievalModuleFileName = "libattractor_retrieval.so";

/// The name of the module's entry point, a ModuleEntry: `extern "C" const ModuleHeader*
/// attractor_retrieval_module()`, returning `&table.header` of its RetrievalModuleTable.
inline constexpr const char* kRetrievalModuleEntryName = "attractor_retrieval_module";

/// Sizes of the values that cross the boundary, folded into one number: a cheap guard against a
/// module whose headers differ without a version bump (a different standard library, a new field).
constexpr std::uint64_t retrieval_module_layout() {
  return module_layout({sizeof(SearchRequest), sizeof(SearchResponse), sizeof(ExpandRequest), sizeof(ExpandResult),
                        sizeof(NodeInfo), sizeof(IndexOptions), sizeof(IndexSummary), sizeof(EmbedderSpec),
                        sizeof(RetrievalError), sizeof(std::string)});
}

/// What the module's entry point returns the header of: the functions behind
/// make_retrieval_backend and index_repository. Static data of the module; never freed.
struct RetrievalModuleTable {
  /// kRetrievalModuleAbiVersion and retrieval_module_layout() of the build that made the module.
  ModuleHeader header;
  /// make_retrieval_backend(kind, index_dir).
  std::unique_ptr<IRetrievalBackend> (*make_backend)(std::string_view kind, const std::string& index_dir);
  /// index_repository(options, progress, interactive).
  IndexSummary (*index_repository)(const IndexOptions& options, std::ostream* progress, bool interactive);
  /// attractor/base/log.h's adopt_log in the module: the loader passes the executable's logger
  /// before calling anything else, since the module links its own copy of spdlog (version 2).
  void (*adopt_log)(std::shared_ptr<spdlog::logger> logger);
};

}  // namespace attractor::retrieval
