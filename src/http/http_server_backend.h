#pragma once
/// \file
/// The HTTP server `attractor serve` runs on, as interfaces: routes, a pre-routing hook, an access
/// logger, an error handler and chunked event streams over requests and responses. The HTTP module
/// (`libattractor_http.so`, http_module.h) implements them with cpp-httplib, so that httplib's
/// types stay inside the module; attractor/server/http_server.h holds its routes.
///
/// Handlers run on the server's connection threads; a handler that throws gets a 500.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace attractor {

/// One request, as a handler sees it.
class ServerRequest {
 public:
  virtual ~ServerRequest() = default;
  /// "GET", "POST", ...
  virtual const std::string& method() const = 0;
  /// The path without the query.
  virtual const std::string& path() const = 0;
  virtual const std::string& body() const = 0;
  /// The client's address.
  virtual const std::string& remote_addr() const = 0;
  /// Capture group `index` of the route's pattern (0: the whole path); "" when there is none.
  virtual std::string match(std::size_t index) const = 0;
  /// The header's first value, "" when absent; `name` is matched case-insensitively.
  virtual std::string header(const std::string& name) const = 0;
  /// The query or form parameter's first value, "" when absent.
  virtual std::string param(const std::string& name) const = 0;
  /// The query or form has the parameter.
  virtual bool has_param(const std::string& name) const = 0;
};

/// Where an event stream writes.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  /// Sends `data`; false when the client is gone.
  virtual bool write(std::string_view data) = 0;
  /// Ends the response.
  virtual void done() = 0;
};

/// Called whenever the stream can take more; false closes the connection.
using StreamProvider = std::function<bool(StreamSink& sink)>;

/// The response a handler fills in.
class ServerResponse {
 public:
  virtual ~ServerResponse() = default;
  virtual int status() const = 0;
  virtual void set_status(int status) = 0;
  /// The size of the body set so far.
  virtual std::size_t body_size() const = 0;
  virtual void set_header(const std::string& name, const std::string& value) = 0;
  /// Sets the body and its Content-Type.
  virtual void set_content(const std::string& body, const std::string& content_type) = 0;
  /// Answers with `status` and a Location header.
  virtual void set_redirect(const std::string& location, int status) = 0;
  /// Makes the body a chunked stream of `content_type` produced by `provider`; `on_end` runs once
  /// when the stream ends, whichever side ended it.
  virtual void set_stream(const std::string& content_type, StreamProvider provider, std::function<void()> on_end) = 0;
};

/// Answers a request routed to it.
using RouteHandler = std::function<void(const ServerRequest& request, ServerResponse& response)>;
/// Runs before routing; true when it answered the request itself (the route is skipped).
using PreRoutingHandler = std::function<bool(const ServerRequest& request, ServerResponse& response)>;
/// Runs after every response.
using AccessLogger = std::function<void(const ServerRequest& request, const ServerResponse& response)>;

/// The connection limits of the server (docs/server.md section 4). A connection waits for its
/// next request without a thread; it takes one of the `threads` only once a whole request (head
/// and body) has arrived. When a limit is reached, the oldest connection that is not being
/// answered (idle, or still sending its request) is closed to make room; only when none is, the
/// new connection gets 503.
struct ConnectionLimits {
  std::size_t max_connections = 512;                 ///< open connections in all
  std::size_t max_connections_per_client = 256;      ///< open connections of one client address
  std::chrono::milliseconds idle_timeout{5000};      ///< wait for a request (first or keep-alive)
  std::chrono::milliseconds request_timeout{10000};  ///< from a request's first byte to its last (408)
  std::chrono::milliseconds write_timeout{5000};     ///< a write that makes no progress ends the connection
  std::size_t max_requests_per_connection = 100;     ///< keep-alive requests, then Connection: close
  std::size_t max_head_bytes = 32 << 10;             ///< request line and headers (431 beyond)
  std::size_t max_buffered_bytes = 64 << 20;         ///< request bytes held for all connections (503 beyond)
};

/// How the server is built.
struct HttpServerSettings {
  std::size_t threads = 8;  ///< threads that answer requests (an event stream holds one)
  std::size_t max_body_bytes = 2 << 20;
  int send_buffer_bytes = 0;  ///< SO_SNDBUF of the connections; 0 = the system's
  ConnectionLimits limits;
};

/// Called for a request refused before routing (431, 408, 503, ...): client address, status, reason.
using RefusalLogger = std::function<void(const std::string& client, int status, const std::string& reason)>;

/// A server: routes first, then bind, then listen until stop.
class HttpServerBackend {
 public:
  virtual ~HttpServerBackend() = default;
  /// Routes GET requests whose whole path matches the regular expression `pattern`.
  virtual void get(const std::string& pattern, RouteHandler handler) = 0;
  /// Routes POST requests whose whole path matches `pattern`.
  virtual void post(const std::string& pattern, RouteHandler handler) = 0;
  virtual void set_pre_routing(PreRoutingHandler handler) = 0;
  virtual void set_access_logger(AccessLogger logger) = 0;
  /// Runs for responses with an error status (4xx, 5xx), after the route if there was one.
  virtual void set_error_handler(RouteHandler handler) = 0;
  /// Told about every request refused at the door (before routing and the access logger).
  virtual void set_refusal_logger(RefusalLogger logger) = 0;
  /// Binds `host`:`port` (port 0: any free port); returns the port, or -1 when it cannot.
  virtual int bind(const std::string& host, int port) = 0;
  /// Serves on the bound socket until stop().
  virtual void listen_after_bind() = 0;
  /// listen_after_bind() is serving.
  virtual bool is_running() const = 0;
  /// Makes listen_after_bind() return (from any thread, once it is running).
  virtual void stop() = 0;
};

}  // namespace attractor
