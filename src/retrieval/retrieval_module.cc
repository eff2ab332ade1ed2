#include "retrieval/retrieval_module.h"

#include <dlfcn.h>

#include <system_error>

namespace attractor::retrieval {

namespace fs = std::filesystem;

namespace {

/// How to get a module where the loader looks.
constexpr const char* kHowToFix =
    "build the attractor_retrieval_module target next to the attractor binary (make binary), or install "
    "attractor with `make install` / `cmake --install`, which puts it in PREFIX/lib/attractor/";

std::string list_paths(const std::vector<fs::path>& paths) {
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p.string();
  return out;
}

/// The candidate that exists, or a RetrievalModuleError naming them all.
fs::path first_existing(const std::vector<fs::path>& candidates) {
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return candidate;
  }
  throw RetrievalModuleError("the retrieval module " + std::string(kRetrievalModuleFileName) +
                             " is missing (searched " + list_paths(candidates) + "); " + kHowToFix);
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

/// The module's table after the checks: entry point present, ABI version and layout equal ours.
const RetrievalModuleTable* checked_table(void* handle, const fs::path& path) {
  auto entry = reinterpret_cast<RetrievalModuleEntry>(dlsym(handle, kRetrievalModuleEntryName));
  if (!entry) {
    throw RetrievalModuleError(path.string() + " is not an attractor retrieval module (no " +
                               kRetrievalModuleEntryName + " entry point); " + kHowToFix);
  }
  const RetrievalModuleTable* table = entry();
  if (!table || table->abi_version != kRetrievalModuleAbiVersion || table->layout != retrieval_module_layout()) {
    const std::string found = table ? std::to_string(table->abi_version) : "none";
    throw RetrievalModuleError(path.string() + " is a retrieval module for another attractor build (ABI version " +
                               found + ", this attractor needs " + std::to_string(kRetrievalModuleAbiVersion) +
                               (table && table->abi_version == kRetrievalModuleAbiVersion ? " with another layout" : "") +
                               "); rebuild or reinstall it with this attractor: " + kHowToFix);
  }
  return table;
}

fs::path running_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw RetrievalModuleError("cannot locate the retrieval module: /proc/self/exe is unreadable (" + ec.message() +
                               ")");
  }
  return exe;
}

}  // namespace

std::vector<fs::path> retrieval_module_candidates(const fs::path& executable) {
  const fs::path dir = executable.parent_path();
  return {dir / kRetrievalModuleFileName, (dir / ".." / "lib" / "attractor" / kRetrievalModuleFileName).lexically_normal()};
}

const RetrievalModule& RetrievalModule::get() {
  static const RetrievalModule module = load(retrieval_module_candidates(running_executable()));
  return module;
}

RetrievalModule RetrievalModule::load(const std::vector<fs::path>& candidates) {
  fs::path path = first_existing(candidates);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    throw RetrievalModuleError("cannot load the retrieval module " + path.string() + ": " + dl_error() + "; " +
                               kHowToFix);
  }
  const RetrievalModuleTable* table = nullptr;
  try {
    table = checked_table(handle, path);
  } catch (...) {
    dlclose(handle);
    throw;
  }
  return RetrievalModule(std::move(path), table);
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
