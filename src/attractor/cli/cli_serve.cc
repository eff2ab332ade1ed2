// `attractor serve`: the HTTP API and web page (docs/server.md).
//
// Decisions of this file (see also docs/decisions.md):
// - Loopback (127.0.0.1:8080) by default. Any other address needs a token: `--token-file`, or one
//   generated here and printed once on stderr with a one-time login address for the browser.
// - The console log level is `info` unless --log-level or ATTRACTOR_LOG_LEVEL says otherwise:
//   one access-log line per request and each run's lifecycle.
// - SIGINT/SIGTERM stop the server: runs are cancelled at a safe point and keep their
//   checkpoints; the command then exits 0.
// - The server runs on the HTTP module (libattractor_http.so, http/http_module.h); when it cannot
//   be loaded the command prints the loader's one line (paths searched, the fix) and exits 3.

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>

#include "attractor/base/log.h"
#include "attractor/base/module_loader.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/server/http_server.h"

namespace attractor {

namespace {

/// "ADDR:PORT" (ADDR may be "[v6]") into its parts; false when malformed.
bool split_listen(const std::string& listen, std::string& host, int& port) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string digits = listen.substr(colon + 1);
  if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  port = std::stoi(digits);
  return port <= 65535;
}

/// The token of `--token-file` (its first line), or an error message.
std::optional<std::string> read_token(const std::string& path, std::string& error) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) {
    error = "cannot read --token-file " + path;
    return std::nullopt;
  }
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.size() < 16) {
    error = "--token-file " + path + ": the token must be at least 16 characters";
    return std::nullopt;
  }
  return line;
}

/// Blocks SIGINT/SIGTERM in every thread started afterwards and calls `stop` when one arrives.
class StopOnSignal {
 public:
  explicit StopOnSignal(std::function<void()> stop) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    waiter_ = std::thread([this, stop = std::move(stop)] {
      int signal = 0;
      sigwait(&set_, &signal);
      if (signal != SIGUSR1) log().info("serve: signal {}: stopping", signal);
      stop();
    });
  }
  ~StopOnSignal() {
    pthread_kill(waiter_.native_handle(), SIGUSR1);
    waiter_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t set_{};
  sigset_t old_{};
  std::thread waiter_;
};

}  // namespace

int run_serve_command(int argc, char** argv) {
  CLI::App app{"Serve the HTTP API and the web page: start runs, watch them live, answer human gates "
               "(docs/server.md). Exit 0 after SIGINT/SIGTERM, 2 on bad options, 3 when it cannot listen or load "
               "its HTTP module."};
  app.name("attractor serve");
  std::string listen = "127.0.0.1:8080";
  std::string token_file;
  ServerConfig config;
  config.max_concurrent = std::max(1u, std::thread::hardware_concurrency());
  double keepalive = 15;
  app.add_option("--listen", listen, "ADDR:PORT to listen on (port 0: any free port)")->capture_default_str();
  app.add_option("--logs-root", config.logs_root, "folder of the run directories")->capture_default_str();
  app.add_option("--graphs-dir", config.graphs_dir, "the only folder {\"graph\": PATH} may name")->capture_default_str();
  app.add_option("--max-concurrent", config.max_concurrent, "runs executing at once; others queue")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--token-file", token_file, "file whose first line is the access token");
  app.add_option("--keepalive", keepalive, "seconds between keep-alive comments on event streams")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  if (auto code = parse_cli(app, argc, argv)) return *code;
  // A server's access log and run lifecycle are its operational record: shown unless the user
  // chose a level.
  if (app.count("--log-level") == 0 && std::getenv(std::string(kLogLevelVariable).c_str()) == nullptr) {
    set_log_level(spdlog::level::info);
  }

  HttpOptions http;
  if (!split_listen(listen, http.host, http.port)) {
    std::fprintf(stderr, "attractor serve: --listen '%s' is not ADDR:PORT\n", listen.c_str());
    return kExitUsage;
  }
  http.keepalive = std::chrono::milliseconds(static_cast<std::int64_t>(keepalive * 1000));
  const bool loopback = is_loopback_address(http.host);
  std::string error;
  if (!token_file.empty()) {
    auto token = read_token(token_file, error);
    if (!token) {
      std::fprintf(stderr, "attractor serve: %s\n", error.c_str());
      return kExitUsage;
    }
    http.token = *token;
  } else if (!loopback) {
    http.token = random_secret() + random_secret();
    std::fprintf(stderr, "attractor serve: listening beyond loopback: access token %s\n", http.token.c_str());
  }
  std::error_code ec;
  std::filesystem::create_directories(config.logs_root, ec);

  RunRegistry runs(config);
  std::unique_ptr<HttpServer> server_holder;  // after `runs`, so that it goes first
  try {
    server_holder = std::make_unique<HttpServer>(runs, http);
  } catch (const ModuleLoadError& e) {
    std::fprintf(stderr, "attractor serve: error: %s\n", e.what());
    return kExitRuntime;
  }
  HttpServer& server = *server_holder;
  const int port = server.bind(&error);
  if (port < 0) {
    std::fprintf(stderr, "attractor serve: %s\n", error.c_str());
    return kExitRuntime;
  }
  const std::string shown_host = http.host.find(':') != std::string::npos ? "[" + http.host + "]" : http.host;
  std::fprintf(stderr, "attractor serve: listening on http://%s:%d/\n", shown_host.c_str(), port);
  if (!http.token.empty()) {
    std::fprintf(stderr, "attractor serve: log in once at http://%s:%d/login?code=%s\n", shown_host.c_str(), port,
                 server.access().new_login_code().c_str());
  }
  std::fflush(stderr);
  {
    // Runs first: interrupting them closes their event streams, so the HTTP server's stop does
    // not wait for open streams to reach their next keep-alive.
    StopOnSignal stopper([&] {
      runs.shutdown();
      server.stop();
    });
    server.serve();
    runs.shutdown();
  }
  return kExitSuccess;
}

}  // namespace attractor
