#include "attractor/base/module_loader.h"

#include <dlfcn.h>

#include <system_error>

namespace attractor {

namespace fs = std::filesystem;

namespace {

std::string list_paths(const std::vector<fs::path>& paths) {
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p.string();
  return out;
}

/// The candidate that exists, or a ModuleLoadError naming them all.
fs::path first_existing(const std::vector<fs::path>& candidates, const ModuleSpec& spec) {
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return candidate;
  }
  throw ModuleLoadError("the " + spec.noun + " " + spec.file_name + " is missing (searched " + list_paths(candidates) +
                        "); " + spec.how_to_fix);
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

/// The refusal of a module whose header is missing or differs from `spec`'s version and layout.
ModuleLoadError wrong_abi(const fs::path& path, const ModuleHeader* header, const ModuleSpec& spec) {
  const std::string found = header ? std::to_string(header->abi_version) : "none";
  const bool same_version = header && header->abi_version == spec.abi_version;
  return ModuleLoadError(path.string() + " is " + spec.a_noun + " for another attractor build (ABI version " + found +
                         ", this attractor needs " + std::to_string(spec.abi_version) +
                         (same_version ? " with another layout" : "") +
                         "); rebuild or reinstall it with this attractor: " + spec.how_to_fix);
}

/// The module's header after the checks: entry point present, ABI version and layout equal spec's.
const ModuleHeader* checked_header(void* handle, const fs::path& path, const ModuleSpec& spec) {
  auto entry = reinterpret_cast<ModuleEntry>(dlsym(handle, spec.entry_name.c_str()));
  if (!entry) {
    throw ModuleLoadError(path.string() + " is not an attractor " + spec.noun + " (no " + spec.entry_name +
                          " entry point); " + spec.how_to_fix);
  }
  const ModuleHeader* header = entry();
  if (!header || header->abi_version != spec.abi_version || header->layout != spec.layout) {
    throw wrong_abi(path, header, spec);
  }
  return header;
}

}  // namespace

std::vector<fs::path> module_candidates(const fs::path& executable, const std::string& file_name) {
  const fs::path dir = executable.parent_path();
  return {dir / file_name, (dir / ".." / "lib" / "attractor" / file_name).lexically_normal()};
}

std::vector<fs::path> module_candidates_of_this_process(const ModuleSpec& spec) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw ModuleLoadError("cannot locate the " + spec.noun + ": /proc/self/exe is unreadable (" + ec.message() + ")");
  }
  return module_candidates(exe, spec.file_name);
}

LoadedModule load_module(const std::vector<fs::path>& candidates, const ModuleSpec& spec) {
  fs::path path = first_existing(candidates, spec);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    throw ModuleLoadError("cannot load the " + spec.noun + " " + path.string() + ": " + dl_error() + "; " +
                          spec.how_to_fix);
  }
  try {
    const ModuleHeader* header = checked_header(handle, path, spec);
    return {std::move(path), header};
  } catch (...) {
    dlclose(handle);
    throw;
  }
}

}  // namespace attractor
