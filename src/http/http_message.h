#pragma once
/// \file
/// What an HTTP POST of attractor's is made of: the request, the response, and the error of a
/// request that produced no response. These values cross the boundary of the HTTP module
/// (`libattractor_http.so`, http_module.h), which sends them with cpp-httplib; the LLM backends
/// reach it through handlers/llm/http_transport.h.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attractor/base/clock.h"

namespace attractor {

/// A POST of a JSON body.
struct HttpRequest {
  std::string url;  ///< absolute: http://host[:port]/path or https://...
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  ///< sent as application/json
  /// Whole-request deadline; nullopt = the transport's default.
  std::optional<std::int64_t> timeout_ms;
  /// The longest the request may wait for its next byte from the server (sending, the reply's
  /// start or its rest); nullopt = only the whole-request deadline. A hung server ends the
  /// request with TransportError::Kind::kIdle this long after it last sent anything.
  std::optional<std::int64_t> idle_timeout_ms;
  CancelToken cancel;
};

/// The answer to an HttpRequest, whatever its status.
struct HttpResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  ///< names lower-cased
  /// The header's value ("" when absent); `name` is matched case-insensitively.
  std::string header(const std::string& name) const;
};

/// A request that produced no HTTP response.
class TransportError : public std::runtime_error {
 public:
  /// kUnavailable: the HTTP module cannot be loaded (the message names the paths searched and the
  /// fix); no request was sent, and retrying cannot help. kIdle: nothing arrived for the
  /// request's `idle_timeout_ms` (kTimeout: its whole deadline passed).
  enum class Kind { kConnection, kTimeout, kCancelled, kUnavailable, kIdle };
  TransportError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

/// Splits "https://host:port/a/b" into ("https://host:port", "/a/b"); the path has no trailing '/'.
std::pair<std::string, std::string> split_url(const std::string& url);

/// `text` in ASCII lower case (header names).
std::string lower_ascii(std::string text);

}  // namespace attractor
