#pragma once
/// \file
/// The HTTP module's POST, with cpp-httplib: HTTP and HTTPS (system CA store), a new connection per
/// request, cut off promptly when the request's CancelToken fires or its deadline passes (a watcher
/// thread shuts the socket down, so a hung server never blocks a stage beyond the node timeout).

#include <cstdint>

#include "http/http_message.h"

namespace attractor {

/// POSTs `request`; any HTTP status is returned, failures without a response throw TransportError.
/// `default_timeout_ms` applies when the request has no deadline.
HttpResponse httplib_post(const HttpRequest& request, std::int64_t default_timeout_ms);

}  // namespace attractor
