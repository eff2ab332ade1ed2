#include "handlers/retrieval_support.h"

#include <filesystem>

#include "attractor/outcome.h"

namespace attractor {

std::shared_ptr<retrieval::IRetrievalBackend> GraphRetrievalProvider::backend_for(const Graph& graph) {
  std::string kind = graph.data().get("retrieval_backend", "local");
  std::string dir = override_;
  if (dir.empty()) {
    dir = graph.data().get("index_dir");
    if (!dir.empty() && !base_dir_.empty() && std::filesystem::path(dir).is_relative()) {
      dir = (std::filesystem::path(base_dir_) / dir).lexically_normal().string();
    }
  }
  if (dir.empty()) {
    throw StageError("no retrieval index: set graph attribute index_dir (or run with --index DIR)",
                     ErrorCategory::kTerminal);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(kind, dir);
  if (auto it = open_.find(key); it != open_.end()) return it->second;
  try {
    std::shared_ptr<retrieval::IRetrievalBackend> backend = retrieval::make_retrieval_backend(kind, dir);
    open_.emplace(key, backend);
    return backend;
  } catch (const retrieval::RetrievalError& error) {
    throw StageError("cannot open retrieval backend '" + kind + "' at " + dir + ": " + error.what(),
                     ErrorCategory::kTerminal);
  }
}

}  // namespace attractor
