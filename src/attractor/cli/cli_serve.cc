// `attractor serve`: the HTTP API and web page (docs/server.md).
//
// Decisions of this file (see also docs/decisions.md):
// - Loopback (127.0.0.1:8080) by default, and a token on every address, loopback included:
//   `--token-file`, or one generated here and printed once on stderr with a one-time login address
//   for the browser. `--no-auth` turns authentication off, on a loopback address only, with a
//   warning. Pipelines may run commands only with `--allow-commands` (docs/server.md section 2).
// - The console log level is `info` unless --log-level or ATTRACTOR_LOG_LEVEL says otherwise:
//   one access-log line per request and each run's lifecycle.
// - SIGINT/SIGTERM stop the server: runs are cancelled at a safe point and keep their
//   checkpoints; the command then exits 0.
// - The server runs on the HTTP module (libattractor_http.so, http/http_module.h); when it cannot
//   be loaded the command prints the loader's one line (paths searched, the fix) and exits 3.

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>

#include "attractor/launch/flag_checks.h"
#include "attractor/base/log.h"
#include "attractor/base/module_loader.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/model/sandbox_level.h"
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

/// How to get in, on stderr: the login address and the generated token, or the --no-auth warning;
/// and what submitted pipelines may do.
void print_access(AccessPolicy& access, const std::string& host, int port, bool generated, bool allow_commands) {
  if (access.requires_token()) {
    std::fprintf(stderr, "attractor serve: log in once at http://%s:%d/login?code=%s\n", host.c_str(), port,
                 access.new_login_code().c_str());
    if (generated) {
      std::fprintf(stderr, "attractor serve: access token %s (API clients: Authorization: Bearer TOKEN)\n",
                   access.token().c_str());
    }
  } else {
    std::fprintf(stderr,
                 "attractor serve: WARNING: --no-auth: no authentication; every user and every program on this "
                 "machine can start, cancel and read runs through http://%s:%d/\n",
                 host.c_str(), port);
  }
  if (allow_commands) {
    std::fprintf(stderr,
                 "attractor serve: WARNING: --allow-commands: submitted pipelines run commands as this user (uid %d)\n",
                 static_cast<int>(::getuid()));
  }
}

}  // namespace

int run_serve_command(int argc, char** argv) {
  CLI::App app{
      "Serve the HTTP API and the web page: start runs, watch them live, answer human gates "
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
  app.add_option("--graphs-dir", config.graphs_dir, "the only folder {\"graph\": PATH} may name")
      ->capture_default_str();
  config.workdir_root = ".";
  app.add_option("--workdir-root", config.workdir_root,
                 "the directory runs work in; a request's workdir must be inside it")
      ->capture_default_str();
  app.add_option("--max-concurrent", config.max_concurrent, "runs executing at once; others queue")
      ->check(positive_number())
      ->capture_default_str();
  bool no_auth = false;
  std::vector<std::string> allow_hosts;
  app.add_option("--token-file", token_file, "file whose first line is the access token (default: a generated one)");
  app.add_flag("--no-auth", no_auth,
               "DANGEROUS: no authentication; every user and program on this machine can use the server "
               "(loopback addresses only)");
  app.add_option("--allow-host", allow_hosts, "another name the Host header may carry (e.g. a reverse proxy's)");
  app.add_flag("--allow-commands", config.allow_commands,
               "let pipelines run commands on this machine (tool stages, tool hooks, cli and agent backends, "
               "manager loops)");
  app.add_option("--sandbox", config.sandbox_floor,
                 "the weakest sandbox any command of a submitted pipeline runs under: none, workspace or strict "
                 "(docs/security.md); a request cannot lower it")
      ->check(CLI::IsMember(sandbox_level_names()))
      ->capture_default_str();
  app.add_option("--keepalive", keepalive, "seconds between keep-alive comments on event streams")
      ->check(number_between(0.05, 3600.0))
      ->capture_default_str();
  if (auto code = parse_cli(app, argc, argv)) return *code;
  // A server's access log and run lifecycle are its operational record: shown unless the user
  // chose a level.
  if (app.count("--log-level") == 0 && std::getenv(std::string(kLogLevelVariable).c_str()) == nullptr) {
    set_log_level(spdlog::level::info);
  }

  HttpOptions http;
  http.authoring = builtin_authoring_catalog();
  if (!split_listen(listen, http.host, http.port)) {
    std::fprintf(stderr, "attractor serve: --listen '%s' is not ADDR:PORT\n", listen.c_str());
    return kExitUsage;
  }
  http.keepalive = std::chrono::milliseconds(static_cast<std::int64_t>(keepalive * 1000));
  http.allow_hosts = allow_hosts;
  http.no_auth = no_auth;
  std::string error;
  if (no_auth && !token_file.empty()) {
    std::fprintf(stderr, "attractor serve: --no-auth and --token-file exclude each other\n");
    return kExitUsage;
  }
  if (no_auth && !is_loopback_address(http.host)) {
    std::fprintf(stderr,
                 "attractor serve: --no-auth is allowed only on a loopback address (127.0.0.0/8, ::1, localhost), "
                 "not on %s; beyond loopback a token is required\n",
                 http.host.c_str());
    return kExitUsage;
  }
  if (!token_file.empty()) {
    auto token = read_token(token_file, error);
    if (!token) {
      std::fprintf(stderr, "attractor serve: %s\n", error.c_str());
      return kExitUsage;
    }
    http.token = *token;
  }
  std::error_code ec;
  std::filesystem::create_directories(config.logs_root, ec);
  const std::filesystem::path workdir_root = std::filesystem::canonical(config.workdir_root, ec);
  if (ec || !std::filesystem::is_directory(workdir_root)) {
    std::fprintf(stderr, "attractor serve: --workdir-root '%s' is not a directory\n", config.workdir_root.c_str());
    return kExitUsage;
  }
  config.workdir_root = workdir_root.string();

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
  print_access(server.access(), shown_host, port, token_file.empty(), config.allow_commands);
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
