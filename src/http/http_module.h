#pragma once
/// \file
/// Loads the HTTP module on first use. cpp-httplib and what it needs (OpenSSL's libssl and
/// libcrypto, zlib, brotli) live in `libattractor_http.so`, so commands that never speak HTTP
/// (`--version`, `validate`, `run --simulate`, `index` without remote embeddings) do not load those
/// libraries at start-up. The OpenAI and Anthropic backends and the coding agent post through it
/// (handlers/llm/http_transport.h); `attractor serve` runs its server on it
/// (attractor/server/http_server.h).
///
/// Lookup rule and checks: those of every attractor module (attractor/base/module_loader.h): only
/// beside the running executable, then in `../lib/attractor/`; never a path from the environment,
/// the working directory or a pipeline. A missing, unloadable or mismatched module is a
/// ModuleLoadError naming the paths searched and the fix: `serve` and a run whose LLM stages need
/// HTTP exit 3 with it.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "attractor/base/module_loader.h"
#include "http/http_message.h"
#include "http/http_server_backend.h"
#include "http/module_abi.h"

namespace attractor {

/// Where the module is looked for, in order, for an executable at `executable`.
std::vector<std::filesystem::path> http_module_candidates(const std::filesystem::path& executable);

/// A loaded HTTP module. It stays loaded until the process exits.
class HttpModule {
 public:
  /// The process-wide module, loaded on the first call (thread-safe) from the candidates of
  /// /proc/self/exe. Throws ModuleLoadError; a later call tries again.
  static const HttpModule& get();

  /// Loads the first of `candidates` that exists. Throws ModuleLoadError when none exists (naming
  /// every candidate), when dlopen fails, when the entry point is missing, or when the module's ABI
  /// version or layout differs from this build's.
  static HttpModule load(const std::vector<std::filesystem::path>& candidates);

  /// The loader's description of this module (its file, entry point, version, how to fix).
  static const ModuleSpec& spec();

  /// The module's POST: any status is returned; no response throws TransportError.
  HttpResponse post(const HttpRequest& request, std::int64_t default_timeout_ms) const;
  /// A new server of the module's, not yet bound.
  std::unique_ptr<HttpServerBackend> make_server(const HttpServerSettings& settings) const;
  /// The file that was loaded.
  const std::filesystem::path& path() const { return path_; }

 private:
  HttpModule(std::filesystem::path path, const HttpModuleTable* table) : path_(std::move(path)), table_(table) {}

  std::filesystem::path path_;
  const HttpModuleTable* table_;
};

/// Why this process cannot speak HTTP (the ModuleLoadError's message), or "" when it can. Loads
/// the module: for the checks a run makes before its first stage.
std::string http_module_problem();

}  // namespace attractor
