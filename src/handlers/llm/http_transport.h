#pragma once
/// \file
/// HTTP POST as a side effect behind an interface, so the LLM backends can be tested with an
/// in-process server or a scripted transport. The real transport posts through the HTTP module
/// (`libattractor_http.so`, http/http_module.h: cpp-httplib, HTTP and HTTPS with the system CA
/// store), which it loads on its first request; it cuts a request off promptly when its
/// `CancelToken` fires or its deadline passes, so a hung server never blocks a stage beyond the
/// node timeout.

#include <cstdint>

#include "http/http_message.h"

namespace attractor {

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  /// POSTs `request`; any HTTP status is returned, failures without a response throw TransportError.
  virtual HttpResponse post(const HttpRequest& request) = 0;
};

/// The HTTP module's cpp-httplib client; a new connection per request. A module that cannot be
/// loaded is a TransportError of kind kUnavailable naming the paths searched and the fix.
class HttplibTransport : public HttpTransport {
 public:
  /// `default_timeout_ms` applies when a request has no deadline (LLM replies can take minutes).
  explicit HttplibTransport(std::int64_t default_timeout_ms = 600'000) : default_timeout_ms_(default_timeout_ms) {}
  HttpResponse post(const HttpRequest& request) override;

 private:
  std::int64_t default_timeout_ms_;
};

}  // namespace attractor
