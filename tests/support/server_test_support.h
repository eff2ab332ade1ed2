#pragma once
// `attractor serve` in-process on a free loopback port, with an HTTP client and the helpers the
// server tests share (tests/attractor/server).

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "attractor/server/http_server.h"
#include "support/engine_test_support.h"

namespace attractor::testing {

/// The token a TestServer requires unless a test gives another.
extern const char* const kTestToken;

/// Gate pipelines the tests start: `gate.dot` (multiple choice A/R after a simulated stage),
/// plus whatever a test writes with `add_graph`. Like `attractor serve` it requires a token
/// (`token`; "" = a generated one; none when `http.no_auth`), which `client()`, `get` and `post`
/// send unless the request brings its own Authorization or Cookie header.
class TestServer {
 public:
  explicit TestServer(std::size_t max_concurrent = 2, std::string token = kTestToken, ServerConfig config = {},
                      HttpOptions http = {});
  ~TestServer();

  /// Writes `graphs/NAME` with `dot`.
  void add_graph(const std::string& name, const std::string& dot);
  /// A client that sends the token.
  std::unique_ptr<httplib::Client> client() const;
  /// A client that sends no credentials.
  std::unique_ptr<httplib::Client> anonymous() const;
  /// The token in force ("" with no_auth).
  const std::string& token() const { return token_; }
  int port() const { return port_; }
  /// The base URL's host:port, as a browser's Host header would be.
  std::string host() const;

  httplib::Result get(const std::string& path, const httplib::Headers& headers = {}) const;
  httplib::Result post(const std::string& path, const nlohmann::json& body, const httplib::Headers& headers = {}) const;
  /// POST /pipelines; returns the new run's id (fails the test otherwise).
  std::string start(const nlohmann::json& body) const;
  /// Polls GET /pipelines/{id} until its status is `status` (true) or `seconds` pass (false).
  bool wait_status(const std::string& id, const std::string& status, double seconds = 20) const;
  /// Polls the run's questions until one is pending; returns it (null JSON after `seconds`).
  nlohmann::json wait_question(const std::string& id, double seconds = 20) const;
  /// Waits until run `id` has the file `name` in its run directory (true) or `seconds` pass.
  bool wait_file(const std::string& id, const std::string& name, double seconds = 20) const;
  /// Lets the holding stages (holding_stage) of run `id` end: writes `go` into every stage folder.
  void release(const std::string& id) const;

  RunRegistry& runs() { return *runs_; }
  HttpServer& http() { return *http_; }
  const std::string& logs_root() const { return logs_root_; }
  const std::string& graphs_dir() const { return graphs_dir_; }
  /// Stops the HTTP server and the runs (as SIGINT does).
  void stop();

 private:
  TempDir dir_;
  std::string logs_root_;
  std::string graphs_dir_;
  std::unique_ptr<RunRegistry> runs_;
  std::unique_ptr<HttpServer> http_;
  std::thread thread_;
  int port_ = 0;
  std::string address_;  ///< where the server listens (HttpOptions::host)
  std::string token_;
};

/// The gate pipeline of `gate.dot`: start -> work -> approve ([A] Approve -> exit, [R] Revise -> work).
extern const char* const kGateDot;

/// A pipeline whose tool stage `hold` touches `hold/started` in its stage folder (where a command
/// at the server's default sandbox may write) and then keeps
/// its run's slot until `TestServer::release` (needs `allow_commands`).
extern const char* const kHoldDot;
/// The tool stage `NAME` of kHoldDot: marks `NAME/started`, waits for `NAME/go` (TestServer::release).
std::string holding_stage(const std::string& name);

/// True when this machine can listen on ::1.
bool has_ipv6_loopback();

/// Calls `condition` every 20 ms until it holds (true) or `seconds` pass (false).
bool eventually(const std::function<bool()>& condition, double seconds = 20);

}  // namespace attractor::testing
