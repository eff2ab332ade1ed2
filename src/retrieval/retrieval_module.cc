#include "retrieval/retrieval_module.h"

#include "attractor/base/log.h"

namespace attractor::retrieval {

namespace fs = std::filesystem;

const ModuleSpec& RetrievalModule::spec() {
  static const ModuleSpec spec{
      "retrieval module",
      "a retrieval module",
      kRetrievalModuleFileName,
      kRetrievalModuleEntryName,
      "build the attractor_retrieval_module target next to the attractor binary (make binary), or install "
      "attractor with `make install` / `cmake --install`, which puts it in PREFIX/lib/attractor/",
      kRetrievalModuleAbiVersion,
      retrieval_module_layout()};
  return spec;
}

std::vector<fs::path> retrieval_module_candidates(const fs::path& executable) {
  return module_candidates(executable, kRetrievalModuleFileName);
}

const RetrievalModule& RetrievalModule::get() {
  static const RetrievalModule module = [] {
    try {
      return load(module_candidates_of_this_process(spec()));
    } catch (const ModuleLoadError& e) {
      throw RetrievalModuleError(e.what());
    }
  }();
  return module;
}

RetrievalModule RetrievalModule::load(const std::vector<fs::path>& candidates) {
  try {
    LoadedModule loaded = load_module(candidates, spec());
    const auto* table = reinterpret_cast<const RetrievalModuleTable*>(loaded.header);
    table->adopt_log(shared_log());
    return RetrievalModule(std::move(loaded.path), table);
  } catch (const ModuleLoadError& e) {
    throw RetrievalModuleError(e.what());
  }
}

std::unique_ptr<IRetrievalBackend> RetrievalModule::make_backend(std::string_view kind,
                                                                 const std::string& index_dir) const {
  return table_->make_backend(kind, index_dir);
}

IndexSummary RetrievalModule::index_repository(const IndexOptions& options, std::ostream* progress,
                                               bool interactive) const {
  return table_->index_repository(options, progress, interactive);
}

}  // namespace attractor::retrieval
