#pragma once
/// \file
/// The HTTP module's server: http/http_server_backend.h over cpp-httplib's Server, whose accepted
/// connections are held by a ConnectionGate (connection_gate.h: the connection limits, the request
/// deadline) and answered by `HttpServerSettings::threads` worker threads.

#include <memory>

#include "http/http_server_backend.h"

namespace attractor {

/// A new cpp-httplib server, not yet bound.
std::unique_ptr<HttpServerBackend> make_httplib_server(const HttpServerSettings& settings);

}  // namespace attractor
