#pragma once
/// \file
/// The HTTP side of `attractor serve`: the routes of docs/server.md over a RunRegistry, the access
/// checks of access.h before every route, one access-log line per request, and the Server-Sent
/// Event streams. The server itself (cpp-httplib) is in the HTTP module (http/http_module.h),
/// loaded when the first HttpServer is made; this header shows none of its types.

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "attractor/authoring/pipeline_document.h"
#include "attractor/server/access.h"
#include "attractor/server/run_registry.h"
#include "http/http_server_backend.h"

namespace attractor {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  ///< 0 = any free port
  /// The access token; "" = one is generated (see `access().token()`), unless `no_auth`.
  std::string token;
  /// No authentication at all (`--no-auth`): only on a loopback address; the constructor throws
  /// std::invalid_argument otherwise.
  bool no_auth = false;
  /// More names the Host header may carry (`--allow-host`, e.g. a reverse proxy's).
  std::vector<std::string> allow_hosts;
  std::size_t max_body_bytes = 2 << 20;
  std::size_t max_streams = 64;  ///< concurrent event streams
  std::chrono::milliseconds keepalive{15000};
  std::size_t threads = 96;  ///< threads answering requests (streams hold one each)
  ConnectionLimits limits;   ///< per-client and total connections, deadlines (docs/server.md section 4)
  /// SO_SNDBUF of the connections (0 = the system's): how much a client that does not read can
  /// leave queued in the kernel before its stream stops taking events.
  int send_buffer_bytes = 0;
  /// What the editor's completion offers (handler catalog, provider names); a null catalog means
  /// the built-in handlers and no provider names.
  AuthoringCatalog authoring;
};

class EditorApi;

class HttpServer {
 public:
  /// Loads the HTTP module if needed (throws ModuleLoadError, attractor/base/module_loader.h, when
  /// it cannot) and installs the routes.
  HttpServer(RunRegistry& runs, HttpOptions options);
  ~HttpServer();

  /// Binds the address and allows the Host names of access.h `allowed_hosts` for it; returns the
  /// port (the chosen one for port 0) or -1 with `error` set.
  int bind(std::string* error);
  /// Serves until `stop()`; call after a successful `bind`. Returns at once when `stop()` came
  /// first.
  void serve();
  /// Stops serving (from any thread, before or after `serve` started); open streams end.
  void stop();

  AccessPolicy& access() { return access_; }

 private:
  void install_routes();
  void install_run_routes();
  void install_stream_route();
  /// GET .../diff: the worktree run's change, or `stage`'s ("" for the whole run), as JSON.
  void send_diff(const ServerRequest& req, ServerResponse& res, const std::string& stage);
  void install_page_routes();
  /// The web editor's endpoints (editor_api.h).
  void install_editor_routes();

  RunRegistry& runs_;
  HttpOptions options_;
  AccessPolicy access_;
  std::unique_ptr<HttpServerBackend> server_;
  std::unique_ptr<EditorApi> editor_;
  std::atomic<std::size_t> streams_{0};
  std::mutex serve_mutex_;
  bool serving_ = false;             ///< serve() has begun listening (guarded by serve_mutex_)
  bool stopped_ = false;             ///< stop() was called (guarded by serve_mutex_)
  std::atomic<bool> served_{false};  ///< serve() has returned
};

}  // namespace attractor
