#pragma once
/// \file
/// How retrieval action handlers reach the code index (seed 002: one injected backend). The
/// provider picks the backend from graph attributes `retrieval_backend` (default "local") and
/// `index_dir`; tests inject a fixed backend.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "attractor/graph.h"
#include "retrieval/backend.h"

namespace attractor {

/// Supplies the retrieval backend for a pipeline. Must be safe to call from several threads.
class RetrievalBackendProvider {
 public:
  virtual ~RetrievalBackendProvider() = default;
  /// The backend for `graph`; throws StageError (terminal) when it cannot be opened.
  virtual std::shared_ptr<retrieval::IRetrievalBackend> backend_for(const Graph& graph) = 0;
};

/// Opens `make_retrieval_backend(retrieval_backend, index_dir)` once per (kind, directory).
/// `index_dir_override` (from the CLI) wins over the graph attribute; a relative `index_dir`
/// attribute is resolved against `base_dir` (the directory of the graph file) when given.
class GraphRetrievalProvider : public RetrievalBackendProvider {
 public:
  explicit GraphRetrievalProvider(std::string index_dir_override = {}, std::string base_dir = {})
      : override_(std::move(index_dir_override)), base_dir_(std::move(base_dir)) {}
  std::shared_ptr<retrieval::IRetrievalBackend> backend_for(const Graph& graph) override;

 private:
  std::string override_;
  std::string base_dir_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<retrieval::IRetrievalBackend>> open_;
};

/// Always returns the same backend (tests, embedding).
class FixedRetrievalProvider : public RetrievalBackendProvider {
 public:
  explicit FixedRetrievalProvider(std::shared_ptr<retrieval::IRetrievalBackend> backend)
      : backend_(std::move(backend)) {}
  std::shared_ptr<retrieval::IRetrievalBackend> backend_for(const Graph&) override { return backend_; }

 private:
  std::shared_ptr<retrieval::IRetrievalBackend> backend_;
};

}  // namespace attractor
