#pragma once
/// \file
/// Loads the retrieval module on first use. The code index (tree-sitter, SQLite FTS5, FAISS with
/// BLAS/LAPACK and OpenMP) lives in `libattractor_retrieval.so`, so commands that never touch
/// retrieval (`--version`, `validate`, `run` of a graph without retrieval steps) do not load those
/// libraries at start-up.
///
/// Lookup rule and checks: those of every attractor module (attractor/base/module_loader.h): only
/// relative to the running executable (/proc/self/exe), its own directory, then
/// `../lib/attractor/` (the `cmake --install` layout); never a path taken from the environment, the
/// working directory or a pipeline. The first candidate that exists is loaded or the load fails.

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/backend.h"
#include "retrieval/indexer.h"
#include "retrieval/module_abi.h"

namespace attractor::retrieval {

/// The retrieval module cannot be used: not found, not loadable, or built for another ABI. The
/// message names the paths searched and the fix. Kind kUnavailable (the CLI exits 3).
class RetrievalModuleError : public RetrievalError {
 public:
  explicit RetrievalModuleError(const std::string& message) : RetrievalError(Kind::kUnavailable, message) {}
};

/// Where the module is looked for, in order, for an executable at `executable`: its directory,
/// then `../lib/attractor/` (lexically normalised).
std::vector<std::filesystem::path> retrieval_module_candidates(const std::filesystem::path& executable);

/// A loaded retrieval module. It stays loaded until the process exits (backends it made may live
/// that long).
class RetrievalModule {
 public:
  /// The process-wide module, loaded on the first call (thread-safe) from the candidates of
  /// /proc/self/exe. Throws RetrievalModuleError; a later call tries again.
  static const RetrievalModule& get();

  /// Loads the first of `candidates` that exists. Throws RetrievalModuleError when none exists
  /// (naming every candidate), when dlopen fails, when the entry point is missing, or when the
  /// module's ABI version or layout differs from this build's.
  static RetrievalModule load(const std::vector<std::filesystem::path>& candidates);

  /// The module's make_retrieval_backend.
  std::unique_ptr<IRetrievalBackend> make_backend(std::string_view kind, const std::string& index_dir) const;
  /// The module's index_repository.
  IndexSummary index_repository(const IndexOptions& options, std::ostream* progress, bool interactive) const;
  /// The file that was loaded.
  const std::filesystem::path& path() const { return path_; }

 private:
  RetrievalModule(std::filesystem::path path, const RetrievalModuleTable* table)
      : path_(std::move(path)), table_(table) {}
  /// The loader's description of this module.
  static const ModuleSpec& spec();

  std::filesystem::path path_;
  const RetrievalModuleTable* table_;
};

}  // namespace attractor::retrieval
