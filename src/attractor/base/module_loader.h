#pragma once
/// \file
/// Loads one of attractor's modules (shared objects it `dlopen`s on first use so that commands
/// which never need them start without their libraries): `libattractor_retrieval.so` (the code
/// index, retrieval/retrieval_module.h) and `libattractor_http.so` (cpp-httplib and OpenSSL,
/// http/http_module.h). docs/architecture.md section 8.
///
/// Lookup rule: a module is searched only relative to the running executable (/proc/self/exe):
/// its own directory, then `../lib/attractor/` (the `cmake --install` layout). Never a path taken
/// from the environment, the working directory or a pipeline, so no input can choose which code is
/// loaded. The first candidate that exists is loaded or the load fails; the others are not tried.
///
/// A module exports one `extern "C"` entry point, `const ModuleHeader* ENTRY()`, returning the
/// header that is the first member of its table of functions (a standard-layout struct, so the
/// caller converts the header's address back to the table's). A table whose ABI version or layout
/// fingerprint differs from the caller's is refused before anything in it is called. A loaded
/// module is never unloaded.

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace attractor {

/// The first member of every module's table: what the loader checks before any call.
struct ModuleHeader {
  std::uint32_t abi_version;  ///< the ABI version of the build that made the module
  std::uint64_t layout;       ///< the layout fingerprint (module_layout) of that build
};

/// Folds the sizes of the types that cross a module boundary into one number: a cheap guard
/// against a module whose headers differ without a version bump (another standard library, a new
/// field).
constexpr std::uint64_t module_layout(std::initializer_list<std::uint64_t> sizes) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t size : sizes) h = (h ^ size) * 1099511628211ull;
  return h;
}

/// What the loader needs to know about one kind of module; the texts go into its error messages.
struct ModuleSpec {
  std::string noun;               ///< "retrieval module": "the retrieval module X is missing"
  std::string a_noun;             ///< "a retrieval module": "P is a retrieval module for another build"
  std::string file_name;          ///< "libattractor_retrieval.so"
  std::string entry_name;         ///< the exported entry point, "attractor_retrieval_module"
  std::string how_to_fix;         ///< how to get the module where the loader looks
  std::uint32_t abi_version = 0;  ///< the version this build expects
  std::uint64_t layout = 0;       ///< the layout fingerprint this build expects
};

/// A module cannot be used: not found, not loadable, no entry point, or built for another ABI. The
/// message is one line naming the paths searched (or the file) and the fix.
class ModuleLoadError : public std::runtime_error {
 public:
  explicit ModuleLoadError(const std::string& message) : std::runtime_error(message) {}
};

/// Where a module named `file_name` is looked for, in order, for an executable at `executable`:
/// its directory, then `../lib/attractor/` (lexically normalised).
std::vector<std::filesystem::path> module_candidates(const std::filesystem::path& executable,
                                                     const std::string& file_name);

/// The candidates for the running executable (/proc/self/exe). Throws ModuleLoadError when that
/// link is unreadable.
std::vector<std::filesystem::path> module_candidates_of_this_process(const ModuleSpec& spec);

/// The signature of every module's entry point.
using ModuleEntry = const ModuleHeader* (*)();

/// A module's checked table and where it came from.
struct LoadedModule {
  std::filesystem::path path;  ///< the file that was loaded
  const ModuleHeader* header;  ///< what its entry point returned: the first member of its table
};

/// Loads the first of `candidates` that exists and calls its entry point. Throws ModuleLoadError
/// when none exists (naming every candidate), when dlopen fails, when the entry point is missing,
/// or when the table's header differs from `spec`'s version and layout.
LoadedModule load_module(const std::vector<std::filesystem::path>& candidates, const ModuleSpec& spec);

}  // namespace attractor
