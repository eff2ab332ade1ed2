#pragma once
/// \file
/// The boundary between attractor and its HTTP module (`libattractor_http.so`, built from
/// src/http/httplib and src/http/module): the one `extern "C"` symbol the module exports and the
/// versioned table of functions it returns. The loader (http_module.h, over
/// attractor/base/module_loader.h) reads the table's ModuleHeader before touching anything else, so
/// it must stay the first member in every version.
///
/// C++ values (strings, maps, std::function, unique_ptr, exceptions) cross this boundary: the
/// executable and the module come from one build, share the heap and the unwinder, and the
/// version check refuses a module from another build of the contract (docs/decisions.md, "The
/// binary links libstdc++ statically", for what the binary's own copy of libstdc++ means here).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "attractor/base/module_loader.h"
#include "http/http_message.h"
#include "http/http_server_backend.h"

namespace attractor {

/// Bump whenever http_message.h, http_server_backend.h or HttpModuleTable change in a way that a
/// module built before the change could misread.
inline constexpr std::uint32_t kHttpModuleAbiVersion = 3;

/// The module's file name, looked for next to the executable and in ../lib/attractor/.
inline constexpr const char* kHttpModuleFileName = "libattractor_http.so";

/// The name of the module's entry point, a ModuleEntry: `extern "C" const ModuleHeader*
/// attractor_http_module()`, returning `&table.header` of its HttpModuleTable.
inline constexpr const char* kHttpModuleEntryName = "attractor_http_module";

/// Sizes of the values that cross the boundary, folded into one number (module_layout).
constexpr std::uint64_t http_module_layout() {
  return module_layout({sizeof(HttpRequest), sizeof(HttpResponse), sizeof(TransportError), sizeof(CancelToken),
                        sizeof(HttpServerSettings), sizeof(ConnectionLimits), sizeof(RouteHandler),
                        sizeof(StreamProvider), sizeof(std::string)});
}

/// What the module's entry point returns the header of. Static data of the module; never freed.
struct HttpModuleTable {
  /// kHttpModuleAbiVersion and http_module_layout() of the build that made the module.
  ModuleHeader header;
  /// POSTs `request` (HTTP or HTTPS); any status is returned, no response throws TransportError.
  /// `default_timeout_ms` applies when the request has no deadline.
  HttpResponse (*post)(const HttpRequest& request, std::int64_t default_timeout_ms);
  /// A new server, not yet bound.
  std::unique_ptr<HttpServerBackend> (*make_server)(const HttpServerSettings& settings);
};

}  // namespace attractor
