#include "attractor/server/http_server.h"

#include <filesystem>
#include <map>
#include <stdexcept>
#include <thread>

#include "attractor/base/json_limits.h"
#include "attractor/base/log.h"
#include "attractor/check/pipeline_loader.h"
#include "attractor/engine/event_names.h"
#include "attractor/launch/run_summary.h"
#include "attractor/launch/run_workspace.h"
#include "attractor/server/editor_api.h"
#include "attractor/server/run_views.h"
#include "attractor/server/web_assets.h"
#include "handlers/registry.h"
#include "http/http_module.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;
using Request = ServerRequest;
using Response = ServerResponse;

constexpr const char* kJson = "application/json";

thread_local std::chrono::steady_clock::time_point t_request_start;

void send_json(Response& res, int status, const nlohmann::json& body) {
  res.set_status(status);
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", kJson);
}

void send(Response& res, const ApiReply& reply) { send_json(res, reply.status, reply.body); }

void send_error(Response& res, int status, const std::string& message) { send_json(res, status, {{"error", message}}); }

/// The request body as JSON, or an error reply already sent.
std::optional<nlohmann::json> json_body(const Request& req, Response& res) {
  if (req.body().empty()) {
    send_error(res, 400, "the request body is empty: send a JSON object (Content-Type: application/json)");
    return std::nullopt;
  }
  try {
    return parse_json_limited(req.body(), "the request body");
  } catch (const std::exception& e) {
    send_error(res, 400, e.what());
    return std::nullopt;
  }
}

void add_security_headers(Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
}

RequestFacts facts_of(const Request& req) {
  return {req.method(),
          req.path(),
          req.header("Host"),
          req.header("Origin"),
          req.header("Sec-Fetch-Site"),
          req.header("Authorization"),
          req.header("Cookie")};
}

std::string login_form(const std::string& message) {
  return "<!doctype html><meta charset=utf-8><title>attractor: log in</title>"
         "<body style=\"font-family:sans-serif;max-width:30em;margin:4em auto\"><h1>attractor</h1><p>" +
         message +
         "</p><form method=post action=/login><input type=password name=token autofocus "
         "placeholder=\"access token\" size=40> <button>Log in</button></form></body>";
}

/// The stream of one client: where it is and what it reads from.
struct StreamState {
  std::string run_id;
  std::string events_path;
  std::shared_ptr<EventLog> live;  ///< null: read the file only
  std::uint64_t after = 0;
  bool caught_up = false;  ///< has received live events (falling behind now means reconnect)
  bool final_seen = false;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
};

bool write_event(StreamSink& sink, const StreamEvent& e) {
  return sink.write("id: " + std::to_string(e.id) + "\ndata: " + e.json + "\n\n");
}

bool write_text(StreamSink& sink, const std::string& text) { return sink.write(text); }

bool is_final_line(const std::string& json) {
  nlohmann::json j = parse_json_or_discarded(json);
  return j.is_object() && j.contains("event") && j["event"].is_string() &&
         is_final_event(j["event"].get<std::string>());
}

/// Sends a live run's next events (catching up from the file first), a keep-alive, or the end.
bool pump_live(StreamState& s, StreamSink& sink, std::chrono::milliseconds keepalive) {
  EventBatch batch = s.live->read_after(s.after, 256, keepalive);
  switch (batch.state) {
    case EventBatch::State::kEvents:
      for (const StreamEvent& e : batch.events) {
        if (!write_event(sink, e)) return false;
        s.after = e.id;
      }
      s.caught_up = true;
      return true;
    case EventBatch::State::kTimeout: return write_text(sink, ": keep-alive\n\n");
    case EventBatch::State::kEnded:
      write_text(sink, "event: end\ndata: {}\n\n");
      sink.done();
      return true;
    case EventBatch::State::kBehind: break;
  }
  if (s.caught_up) {
    write_text(sink, "event: reconnect\ndata: {\"reason\": \"fell behind the live stream\"}\n\n");
    sink.done();
    return true;
  }
  const std::uint64_t oldest = s.live->oldest_id();
  std::vector<StreamEvent> missed = read_event_lines(s.events_path, s.after, oldest, 1024);
  for (const StreamEvent& e : missed) {
    if (!write_event(sink, e)) return false;
  }
  s.after = missed.empty() || missed.back().id + 1 >= oldest ? oldest - 1 : missed.back().id;
  return true;
}

/// Sends the file's next lines; follows a run another process executes until it ends.
bool pump_file(StreamState& s, StreamSink& sink, std::chrono::milliseconds keepalive) {
  std::vector<StreamEvent> lines = read_event_lines(s.events_path, s.after, 0, 1024);
  for (const StreamEvent& e : lines) {
    if (!write_event(sink, e)) return false;
    s.after = e.id;
    s.final_seen = is_final_line(e.json);
  }
  if (!lines.empty()) return true;
  const bool running_elsewhere =
      !s.final_seen &&
      summarize_run(fs::path(s.events_path).parent_path().string(), 0, RunningDetail::kBrief).status == "running";
  if (!running_elsewhere) {
    write_text(sink, "event: end\ndata: {}\n\n");
    sink.done();
    return true;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  if (std::chrono::steady_clock::now() - s.last_write < keepalive) return true;
  s.last_write = std::chrono::steady_clock::now();
  return write_text(sink, ": keep-alive\n\n");
}

/// The token the server requires: the given one, a generated one, or "" for `no_auth`.
std::string access_token(const HttpOptions& options) {
  if (options.no_auth) {
    if (!is_loopback_address(options.host)) {
      throw std::invalid_argument("--no-auth is allowed only on a loopback address, not on " + options.host);
    }
    return "";
  }
  return options.token.empty() ? random_secret() + random_secret() : options.token;
}

}  // namespace

HttpServer::HttpServer(RunRegistry& runs, HttpOptions options)
    : runs_(runs),
      options_(std::move(options)),
      access_(access_token(options_)),
      server_(HttpModule::get().make_server(
          {options_.threads, options_.max_body_bytes, options_.send_buffer_bytes, options_.limits})) {
  server_->set_pre_routing([this](const Request& req, Response& res) {
    t_request_start = std::chrono::steady_clock::now();
    add_security_headers(res);
    AccessVerdict verdict = access_.check(facts_of(req));
    if (verdict.allowed()) return false;
    if (verdict.status == 401 && req.method() == "GET" && (req.path() == "/" || req.path() == "/index.html")) {
      res.set_redirect("/login", 303);  // a browser without a session gets the login form
      return true;
    }
    send_error(res, verdict.status, verdict.reason);
    return true;
  });
  server_->set_access_logger([](const Request& req, const Response& res) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                          t_request_start);
    log().info("http {} {} {} {} {}B {}ms", req.remote_addr(), req.method(), req.path(), res.status(), res.body_size(),
               ms.count());
  });
  server_->set_error_handler([](const Request&, Response& res) {
    if (res.body_size() > 0) return;
    const char* message = res.status() == 413   ? "the request body is too large"
                          : res.status() == 404 ? "not found"
                          : res.status() == 414 ? "the request target is longer than 8192 bytes"
                          : res.status() == 400 ? "bad request: the request line or a header could not be parsed"
                                                : "request failed";
    send_error(res, res.status(), message);
  });
  server_->set_refusal_logger([](const std::string& client, int status, const std::string& reason) {
    log().info("http {} - - {} refused at the door: {}", client, status, reason);
  });
  install_routes();
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::bind(std::string* error) {
  const int port = server_->bind(options_.host, options_.port);
  if (port > 0) access_.set_allowed_hosts(allowed_hosts(options_.host, port, options_.allow_hosts));
  if (port < 0 && error) *error = "cannot listen on " + options_.host + ":" + std::to_string(options_.port);
  return port;
}

void HttpServer::serve() {
  {
    std::lock_guard lock(serve_mutex_);
    if (stopped_) return;
    serving_ = true;
  }
  server_->listen_after_bind();
  served_ = true;
}

void HttpServer::stop() {
  // Streams of runs that just ended are writing their `event: end`; give them a moment.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (streams_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  {
    std::lock_guard lock(serve_mutex_);
    stopped_ = true;
    if (!serving_) return;
  }
  // httplib ignores a stop that comes before its listen loop is running, so wait for it.
  while (!server_->is_running() && !served_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
}

void HttpServer::install_routes() {
  server_->get("/health", [this](const Request&, Response& res) {
    nlohmann::json j = runs_.counts();
    j["status"] = "ok";
    j["version"] = ATTRACTOR_VERSION;
    send_json(res, 200, j);
  });
  server_->post("/validate", [](const Request& req, Response& res) {
    auto body = json_body(req, res);
    if (!body) return;
    if (!body->is_object() || !body->contains("dot") || !(*body)["dot"].is_string()) {
      return send_error(res, 400, "the body must be {\"dot\": SOURCE}");
    }
    LoadedPipeline loaded = load_pipeline_text("pipeline.dot", (*body)["dot"].get<std::string>(),
                                               builtin_handler_catalog());
    send_json(res, 200, capped_diagnostics(loaded.diagnostics));
  });
  server_->get("/graphs", [this](const Request&, Response& res) {
    nlohmann::json out = nlohmann::json::array();
    std::error_code ec;
    const fs::path root = runs_.config().graphs_dir;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".dot") files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      LoadedPipeline loaded = load_pipeline(f.string(), builtin_handler_catalog());
      out.push_back({{"path", f.lexically_relative(root).string()},
                     {"name", loaded.graph ? loaded.graph->name() : ""},
                     {"ok", loaded.ok()}});
    }
    send_json(res, 200, out);
  });
  install_run_routes();
  install_stream_route();
  install_page_routes();
  install_editor_routes();
}

void HttpServer::install_editor_routes() {
  editor_ = std::make_unique<EditorApi>(runs_.config().graphs_dir, options_.authoring);
  server_->get("/editor/graph",
               [this](const Request& req, Response& res) { send(res, editor_->open(req.param("path"))); });
  auto post = [this](const std::string& path, ApiReply (EditorApi::*method)(const nlohmann::json&) const) {
    server_->post(path, [this, method](const Request& req, Response& res) {
      if (auto body = json_body(req, res)) send(res, ((*editor_).*method)(*body));
    });
  };
  post("/editor/graph", &EditorApi::save);
  post("/editor/diagnostics", &EditorApi::diagnostics);
  post("/editor/completion", &EditorApi::completion);
  post("/editor/hover", &EditorApi::hover);
  post("/editor/format", &EditorApi::format);
  server_->post("/editor/preview", [this](const Request& req, Response& res) {
    auto body = json_body(req, res);
    if (!body) return;
    DotProcessRenderer renderer;
    SvgResult svg = editor_->preview(*body, renderer);
    if (!svg.ok) return send_error(res, svg.status, svg.error);
    res.set_content(svg.svg, "image/svg+xml");
  });
}

void HttpServer::install_run_routes() {
  server_->get("/pipelines", [this](const Request&, Response& res) { send_json(res, 200, runs_.list()); });
  server_->post("/pipelines", [this](const Request& req, Response& res) {
    if (auto body = json_body(req, res)) send(res, runs_.start(*body));
  });
  server_->get(R"(/pipelines/([^/]+))", [this](const Request& req, Response& res) {
    auto j = runs_.describe(req.match(1));
    if (!j) return send_error(res, 404, "no run " + req.match(1));
    send_json(res, 200, *j);
  });
  server_->post(R"(/pipelines/([^/]+)/cancel)",
                [this](const Request& req, Response& res) { send(res, runs_.cancel(req.match(1))); });
  server_->post(R"(/pipelines/([^/]+)/resume)",
                [this](const Request& req, Response& res) { send(res, runs_.resume(req.match(1))); });
  server_->post(R"(/pipelines/([^/]+)/rewind)", [this](const Request& req, Response& res) {
    if (auto body = json_body(req, res)) send(res, runs_.rewind(req.match(1), *body));
  });
  server_->post(R"(/pipelines/([^/]+)/fork)", [this](const Request& req, Response& res) {
    if (auto body = json_body(req, res)) send(res, runs_.fork(req.match(1), *body));
  });
  server_->get(R"(/pipelines/([^/]+)/graph)", [this](const Request& req, Response& res) {
    auto dir = runs_.run_dir_of(req.match(1));
    if (!dir) return send_error(res, 404, "no run " + req.match(1));
    DotProcessRenderer renderer;
    SvgResult svg = run_graph_svg(*dir, runs_.current_node(req.match(1)), renderer, runs_.graph_path(req.match(1)));
    if (!svg.ok) return send_error(res, svg.status, svg.error);
    res.set_content(svg.svg, "image/svg+xml");
  });
  server_->get(R"(/pipelines/([^/]+)/questions)", [this](const Request& req, Response& res) {
    if (!runs_.run_dir_of(req.match(1))) return send_error(res, 404, "no run " + req.match(1));
    auto run = runs_.served(req.match(1));
    send_json(res, 200, run && run->interviewer ? run->interviewer->pending() : nlohmann::json::array());
  });
  server_->post(R"(/pipelines/([^/]+)/questions/([^/]+)/answer)", [this](const Request& req, Response& res) {
    auto run = runs_.served(req.match(1));
    if (!run || !run->interviewer) return send_error(res, 404, "no gate is waiting in run " + req.match(1));
    auto body = json_body(req, res);
    if (!body) return;
    if (!body->is_object() || !body->contains("answer") || !(*body)["answer"].is_string()) {
      return send_error(res, 400, "the body must be {\"answer\": KEY_LABEL_OR_TEXT}");
    }
    std::string error;
    const std::string answer = (*body)["answer"].get<std::string>();
    switch (run->interviewer->answer(req.match(2), answer, &error)) {
      case AnswerResult::kAccepted: return send_json(res, 200, {{"id", req.match(2)}, {"answer", answer}});
      case AnswerResult::kNoMatch: return send_error(res, 400, error);
      case AnswerResult::kUnknown: return send_error(res, 404, error);
      case AnswerResult::kAlreadyDone: return send_error(res, 409, error);
    }
  });
  server_->get(R"(/pipelines/([^/]+)/(checkpoint|context))", [this](const Request& req, Response& res) {
    auto dir = runs_.run_dir_of(req.match(1));
    if (!dir) return send_error(res, 404, "no run " + req.match(1));
    auto checkpoint = checkpoint_view(*dir);
    if (!checkpoint) return send_error(res, 404, "run " + req.match(1) + " has no checkpoint yet");
    if (req.match(2) == "checkpoint") return send_json(res, 200, *checkpoint);
    send_json(res, 200, checkpoint->value("context", nlohmann::json::object()));
  });
  server_->get(R"(/pipelines/([^/]+)/diff)", [this](const Request& req, Response& res) { send_diff(req, res, ""); });
  server_->get(R"(/pipelines/([^/]+)/stages/([^/]+)/diff)",
               [this](const Request& req, Response& res) { send_diff(req, res, req.match(2)); });
  server_->get(R"(/pipelines/([^/]+)/stages/([^/]+))", [this](const Request& req, Response& res) {
    auto dir = runs_.run_dir_of(req.match(1));
    if (!dir) return send_error(res, 404, "no run " + req.match(1));
    auto stage = stage_view(*dir, req.match(2));
    if (!stage) return send_error(res, 404, "no stage " + req.match(2) + " in this run");
    send_json(res, 200, *stage);
  });
}

void HttpServer::send_diff(const Request& req, Response& res, const std::string& stage) {
  auto dir = runs_.run_dir_of(req.match(1));
  if (!dir) return send_error(res, 404, "no run " + req.match(1));
  auto diff = run_dir_diff(*dir, stage);
  if (auto* refused = std::get_if<RunRefusal>(&diff)) {
    return send_error(res, refused->exit_code == kExitUsage ? 404 : 500, refused->message);
  }
  const CommitDiff& d = std::get<CommitDiff>(diff);
  send_json(res, 200, {{"patch", d.patch}, {"files", d.files}});
}

void HttpServer::install_stream_route() {
  server_->get(R"(/pipelines/([^/]+)/events)", [this](const Request& req, Response& res) {
    auto dir = runs_.run_dir_of(req.match(1));
    if (!dir) return send_error(res, 404, "no run " + req.match(1));
    if (streams_.fetch_add(1) >= options_.max_streams) {
      streams_.fetch_sub(1);
      return send_error(res, 503, "too many event streams; try again later");
    }
    auto state = std::make_shared<StreamState>();
    state->run_id = req.match(1);
    state->events_path = (fs::path(*dir) / "events.jsonl").string();
    if (auto run = runs_.served(state->run_id)) state->live = run->events;
    const std::string last = req.header("Last-Event-ID");
    if (!last.empty() && last.size() < 19 && std::all_of(last.begin(), last.end(), ::isdigit)) {
      state->after = std::stoull(last);
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_stream(
        "text/event-stream",
        [this, state](StreamSink& sink) {
          if (state->live) return pump_live(*state, sink, options_.keepalive);
          return pump_file(*state, sink, options_.keepalive);
        },
        [this] { streams_.fetch_sub(1); });
  });
}

void HttpServer::install_page_routes() {
  auto asset = [](const std::string& name) {
    return [name](const Request&, Response& res) {
      std::optional<WebAsset> a = web_asset(name);
      if (!a) return send_error(res, 404, "not found");
      res.set_header("Cache-Control", "no-cache");
      res.set_content(a->body, a->content_type);
    };
  };
  server_->get("/", asset("index.html"));
  server_->get("/index.html", asset("index.html"));
  server_->get("/app.js", asset("app.js"));
  server_->get("/app.css", asset("app.css"));
  server_->get("/editor.js", asset("editor.js"));
  server_->get(R"(/vendor/([a-z0-9-]+\.js))", [](const Request& req, Response& res) {
    std::optional<WebAsset> a = web_vendor_asset(req.match(1));
    if (!a) return send_error(res, 404, "not found");
    res.set_header("Cache-Control", "max-age=86400");
    res.set_content(a->body, a->content_type);
  });
  server_->get("/login", [this](const Request& req, Response& res) {
    if (!access_.requires_token()) return res.set_redirect("/", 303);
    if (auto session = access_.redeem_code(req.param("code"))) {
      res.set_header("Set-Cookie", AccessPolicy::session_cookie(*session));
      return res.set_redirect("/", 303);
    }
    res.set_status(req.has_param("code") ? 401 : 200);
    res.set_content(login_form(req.has_param("code") ? "That login link was used already or is wrong. Paste the "
                                                       "access token instead."
                                                     : "Paste the access token printed by attractor serve."),
                    "text/html; charset=utf-8");
  });
  server_->post("/login", [this](const Request& req, Response& res) {
    if (auto session = access_.login_with_token(req.param("token"))) {
      res.set_header("Set-Cookie", AccessPolicy::session_cookie(*session));
      return res.set_redirect("/", 303);
    }
    res.set_status(401);
    res.set_content(login_form("Wrong token."), "text/html; charset=utf-8");
  });
}

}  // namespace attractor
