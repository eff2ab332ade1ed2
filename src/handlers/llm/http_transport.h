#pragma once
/// \file
/// HTTP POST as a side effect behind an interface, so the LLM backends can be tested with an
/// in-process server or a scripted transport. The cpp-httplib implementation speaks HTTP and
/// HTTPS (system CA store), and cuts a request off promptly when its `CancelToken` fires or its
/// deadline passes: a watcher thread shuts the socket down, so a hung server never blocks a stage
/// beyond the node timeout.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attractor/base/clock.h"

namespace attractor {

struct HttpRequest {
  std::string url;  ///< absolute: http://host[:port]/path or https://...
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  ///< sent as application/json
  /// Whole-request deadline; nullopt = the transport's default.
  std::optional<std::int64_t> timeout_ms;
  CancelToken cancel;
};

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
  enum class Kind { kConnection, kTimeout, kCancelled };
  TransportError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  /// POSTs `request`; any HTTP status is returned, failures without a response throw TransportError.
  virtual HttpResponse post(const HttpRequest& request) = 0;
};

/// cpp-httplib client; a new connection per request.
class HttplibTransport : public HttpTransport {
 public:
  /// `default_timeout_ms` applies when a request has no deadline (LLM replies can take minutes).
  explicit HttplibTransport(std::int64_t default_timeout_ms = 600'000) : default_timeout_ms_(default_timeout_ms) {}
  HttpResponse post(const HttpRequest& request) override;

 private:
  std::int64_t default_timeout_ms_;
};

/// Splits "https://host:port/a/b" into ("https://host:port", "/a/b"); the path has no trailing '/'.
std::pair<std::string, std::string> split_url(const std::string& url);

}  // namespace attractor
