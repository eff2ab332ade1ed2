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

/// The deadline of one LLM request of a stage without a node `timeout` (docs/llm.md §1.3):
/// `ATTRACTOR_LLM_TIMEOUT` changes it.
inline constexpr std::int64_t kDefaultLlmRequestTimeoutMs = 300'000;
/// How long such a request may receive nothing from the server before it ends as hung:
/// `ATTRACTOR_LLM_IDLE_TIMEOUT` changes it. A non-streamed reply sends nothing until it is
/// complete, so this is also the longest a model may think.
inline constexpr std::int64_t kDefaultLlmIdleTimeoutMs = 120'000;
inline constexpr const char* kLlmTimeoutVariable = "ATTRACTOR_LLM_TIMEOUT";
inline constexpr const char* kLlmIdleTimeoutVariable = "ATTRACTOR_LLM_IDLE_TIMEOUT";

/// The HTTP module's cpp-httplib client; a new connection per request. A module that cannot be
/// loaded is a TransportError of kind kUnavailable naming the paths searched and the fix.
class HttplibTransport : public HttpTransport {
 public:
  /// A request without a deadline (no node `timeout`) gets `default_timeout_ms` and the idle
  /// deadline `idle_timeout_ms`; one with a deadline keeps it and has no idle deadline.
  explicit HttplibTransport(std::int64_t default_timeout_ms = kDefaultLlmRequestTimeoutMs,
                            std::int64_t idle_timeout_ms = kDefaultLlmIdleTimeoutMs)
      : default_timeout_ms_(default_timeout_ms), idle_timeout_ms_(idle_timeout_ms) {}
  HttpResponse post(const HttpRequest& request) override;

 private:
  std::int64_t default_timeout_ms_;
  std::int64_t idle_timeout_ms_;
};

}  // namespace attractor
