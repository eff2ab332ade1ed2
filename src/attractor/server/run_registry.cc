#include "attractor/server/run_registry.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <variant>

#include <fmt/format.h>

#include "attractor/base/json_limits.h"
#include "attractor/base/log.h"
#include "attractor/engine/event_names.h"
#include "attractor/launch/exit_code.h"
#include "attractor/launch/run_fork.h"
#include "attractor/launch/run_rewind.h"
#include "attractor/launch/run_summary.h"
#include "attractor/launch/run_workspace.h"
#include "attractor/model/sandbox_level.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_lock.h"
#include "attractor/server/gate_slot_interviewer.h"
#include "attractor/server/run_views.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

/// The fields `POST /pipelines` accepts; any other is refused, so a typo does not go unnoticed.
const std::set<std::string>& start_fields() {
  static const std::set<std::string> fields = {"dot",          "graph",   "context",   "backend",          "simulate",
                                               "auto_approve", "answers", "responses", "max_total_tokens", "max_cost",
                                               "prices",       "strict",  "workdir",   "sandbox",          "workspace"};
  return fields;
}

constexpr const char* kRequestFile = "request.json";
constexpr const char* kNeverStarted = "stopped before it started";

/// True for a run directory holding an accepted request but no checkpoint.
bool never_started(const fs::path& dir) {
  return fs::exists(dir / kRequestFile) && !fs::exists(dir / "checkpoint.json");
}

/// RunFlags from a manifest-style `options` object (everything restored, nothing given).
RunFlags flags_from_options(const nlohmann::json& options) {
  RunFlags flags;
  CLI::App none;
  add_common_options(none, flags);
  none.parse(std::vector<std::string>{});
  restore_manifest_options(options, none, flags);
  return flags;
}

ApiReply error_reply(int status, std::string message) { return {status, {{"error", std::move(message)}}}; }

/// True when `path` is `root` or inside it (both normal, absolute).
bool within(const fs::path& path, const fs::path& root) {
  const std::string p = path.string();
  const std::string r = root.string();
  return p == r || (p.size() > r.size() && p.compare(0, r.size(), r) == 0 && (r.back() == '/' || p[r.size()] == '/'));
}

/// The request.json of run directory `dir` parsed; an empty object when it is missing or broken.
nlohmann::json saved_request(const fs::path& dir) {
  try {
    nlohmann::json saved = parse_json_or_discarded(read_text_file((dir / kRequestFile).string()));
    return saved.is_object() ? saved : nlohmann::json::object();
  } catch (const std::exception&) {
    return nlohmann::json::object();
  }
}

/// The reply for a run that cannot start: its messages and diagnostics.
ApiReply launch_failure_reply(const LaunchFailure& f) {
  std::string message;
  for (const std::string& m : f.messages) message += (message.empty() ? "" : "; ") + m;
  nlohmann::json diagnostics = capped_diagnostics(f.diagnostics);
  if (!f.commands.empty()) {
    nlohmann::json commands = nlohmann::json::array();
    for (const CommandUse& use : f.commands) commands.push_back({{"node", use.node}, {"runs", use.what}});
    return {403, {{"error", message}, {"commands", commands}}};
  }
  return {400, {{"error", message}, {"exit_code", f.exit_code}, {"diagnostics", diagnostics}}};
}

/// Passes every event to a function.
class FunctionObserver : public EventObserver {
 public:
  explicit FunctionObserver(std::function<void(const Event&)> f) : f_(std::move(f)) {}
  void on_event(const Event& event) override { f_(event); }

 private:
  std::function<void(const Event&)> f_;
};

void write_json_file(const fs::path& path, const nlohmann::json& value) {
  std::ofstream out(path, std::ios::binary);
  out << value.dump(2) << "\n";
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

/// The graph file `relative` names inside `graphs_dir`, or an error message.
std::variant<std::string, std::string> graph_in_directory(const std::string& graphs_dir, const std::string& relative) {
  fs::path rel(relative);
  if (relative.empty() || rel.is_absolute() || rel.extension() != ".dot") {
    return std::variant<std::string, std::string>(std::in_place_index<1>,
                                                  "graph must be a relative path to a .dot file");
  }
  for (const auto& part : rel) {
    if (part == ".." || part == ".") {
      return std::variant<std::string, std::string>(std::in_place_index<1>, "graph must not contain '.' or '..'");
    }
  }
  std::error_code ec;
  const fs::path root = fs::canonical(graphs_dir, ec);
  const fs::path file = ec ? fs::path() : fs::weakly_canonical(root / rel, ec);
  const std::string prefix = root.string() + "/";
  if (ec || file.string().compare(0, prefix.size(), prefix) != 0 || !fs::is_regular_file(file)) {
    return std::variant<std::string, std::string>(std::in_place_index<1>,
                                                  "no graph '" + relative + "' in the graphs directory");
  }
  return std::variant<std::string, std::string>(std::in_place_index<0>, file.string());
}

/// The type-checked options of a start request, set on `flags`; an error message when one is
/// the wrong type.
std::optional<std::string> read_flags(const nlohmann::json& body, RunFlags& flags) {
  auto boolean = [&](const char* key, bool& out) -> std::optional<std::string> {
    if (!body.contains(key)) return std::nullopt;
    if (!body[key].is_boolean()) return std::string(key) + " must be true or false";
    out = body[key].get<bool>();
    return std::nullopt;
  };
  for (auto [key, out] : {std::pair{"simulate", &flags.simulate}, std::pair{"auto_approve", &flags.auto_approve},
                          std::pair{"strict", &flags.strict}}) {
    if (auto e = boolean(key, *out)) return e;
  }
  if (body.contains("backend")) {
    if (!body["backend"].is_string()) return "backend must be a string";
    flags.backend = body["backend"].get<std::string>();
  }
  if (body.contains("max_total_tokens")) {
    if (!body["max_total_tokens"].is_number_integer() || body["max_total_tokens"].get<std::int64_t>() <= 0)
      return "max_total_tokens must be a positive integer";
    flags.max_total_tokens = body["max_total_tokens"].get<std::int64_t>();
  }
  if (body.contains("max_cost")) {
    if (!body["max_cost"].is_number() || body["max_cost"].get<double>() <= 0)
      return "max_cost must be a positive number";
    flags.max_cost = body["max_cost"].get<double>();
  }
  if (body.contains("sandbox")) {
    if (!body["sandbox"].is_string() || !parse_sandbox_level(body["sandbox"].get<std::string>()))
      return "sandbox must be \"none\", \"workspace\" or \"strict\" (the server's --sandbox floor raises it)";
    flags.sandbox = body["sandbox"].get<std::string>();
  }
  if (body.contains("workspace")) {
    if (!body["workspace"].is_string() ||
        (body["workspace"] != kWorkspaceWorktree && body["workspace"] != kWorkspaceInPlace))
      return "workspace must be \"worktree\" or \"in-place\" (docs/workspace.md)";
    flags.workspace = body["workspace"].get<std::string>();
  }
  if (body.contains("context") && !body["context"].is_object()) return "context must be an object";
  if (body.contains("prices") && !body["prices"].is_object()) return "prices must be an object";
  if (body.contains("responses") && !body["responses"].is_object()) return "responses must be an object";
  if (body.contains("answers") && !body["answers"].is_object() && !body["answers"].is_array())
    return "answers must be an object or an array";
  return std::nullopt;
}

/// How a run that never started looks in the API.
nlohmann::json unstarted_summary(const fs::path& dir) {
  return {{"run_dir", dir.string()},
          {"status", "interrupted"},
          {"reason", kNeverStarted},
          {"node", ""},
          {"completed_nodes", nlohmann::json::array()},
          {"usage", nlohmann::json::object()}};
}

}  // namespace

RunRegistry::RunRegistry(ServerConfig config) : config_(std::move(config)) {
  if (config_.max_concurrent == 0) config_.max_concurrent = 1;
}

RunRegistry::~RunRegistry() { shutdown(); }

std::variant<std::string, ApiReply> RunRegistry::workdir_of(const nlohmann::json& requested) const {
  using Result = std::variant<std::string, ApiReply>;
  std::error_code ec;
  const fs::path root = fs::canonical(
      config_.workdir_root.empty() ? fs::current_path() : fs::path(config_.workdir_root), ec);
  if (ec) return Result(std::in_place_index<1>, error_reply(500, "the workdir root cannot be read: " + ec.message()));
  if (requested.is_null()) return Result(std::in_place_index<0>, root.string());
  if (!requested.is_string() || requested.get<std::string>().empty())
    return Result(std::in_place_index<1>, error_reply(400, "workdir must be a non-empty string"));
  const std::string name = requested.get<std::string>();
  const std::string rule = "a request's workdir must be a directory inside the workdir root " + root.string() +
                           " (attractor serve --workdir-root)";
  const fs::path wanted = (fs::path(name).is_absolute() ? fs::path(name) : root / name).lexically_normal();
  if (!within(wanted, root))
    return Result(std::in_place_index<1>, error_reply(403, "workdir '" + name + "' is outside: " + rule));
  const fs::path real = fs::canonical(wanted, ec);
  if (ec) return Result(std::in_place_index<1>, error_reply(400, "workdir '" + name + "' does not exist; " + rule));
  if (!within(real, root))  // a symbolic link inside the root that leads out of it
    return Result(std::in_place_index<1>,
                  error_reply(403, "workdir '" + name + "' leads outside through a symbolic link: " + rule));
  if (!fs::is_directory(real, ec))
    return Result(std::in_place_index<1>, error_reply(400, "workdir '" + name + "' is not a directory; " + rule));
  return Result(std::in_place_index<0>, real.string());
}

std::variant<std::string, ApiReply> RunRegistry::saved_workdir(const std::string& dir) const {
  nlohmann::json saved = saved_request(dir);
  return workdir_of(saved.value("workdir", nlohmann::json()));
}

std::optional<ApiReply> RunRegistry::fill_request(const nlohmann::json& body, LaunchRequest& request,
                                                  std::string& dot) {
  if (!body.is_object()) return error_reply(400, "the body must be a JSON object");
  for (const auto& [key, value] : body.items()) {
    if (!start_fields().count(key)) return error_reply(400, "unknown field '" + key + "'");
  }
  if (body.contains("dot") == body.contains("graph")) return error_reply(400, "give either dot or graph");
  if (auto e = read_flags(body, request.flags)) return error_reply(400, *e);
  auto workdir = workdir_of(body.contains("workdir") ? body["workdir"] : nlohmann::json());
  if (auto* bad = std::get_if<ApiReply>(&workdir)) return *bad;
  request.workdir = std::get<std::string>(workdir);
  if (body.contains("dot")) {
    if (!body["dot"].is_string()) return error_reply(400, "dot must be a string");
    dot = body["dot"].get<std::string>();
    if (dot.size() > config_.max_dot_bytes) {
      return error_reply(413, "the DOT source is larger than " + std::to_string(config_.max_dot_bytes) + " bytes");
    }
    return std::nullopt;
  }
  if (!body["graph"].is_string()) return error_reply(400, "graph must be a string");
  auto found = graph_in_directory(config_.graphs_dir, body["graph"].get<std::string>());
  if (found.index() == 1) return error_reply(400, std::get<1>(found));
  request.graph_path = std::get<0>(found);
  try {
    dot = read_text_file(request.graph_path);
  } catch (const std::exception& e) {
    return error_reply(400, e.what());
  }
  return std::nullopt;
}

ApiReply RunRegistry::start(const nlohmann::json& body) {
  LaunchRequest request;
  std::string dot;
  if (auto bad = fill_request(body, request, dot)) return *bad;
  LoadedPipeline named = load_pipeline_text(request.graph_path.empty() ? "pipeline.dot" : request.graph_path, dot,
                                            builtin_handler_catalog());
  if (!named.graph) {
    LaunchFailure f;
    f.messages.push_back("the pipeline does not parse");
    f.diagnostics = named.diagnostics;
    return launch_failure_reply(f);
  }
  const std::string name = named.graph->name().empty() ? "pipeline" : named.graph->name();
  const std::string id = run_directory_name(name, system_clock().now_ms(), random_hex6());
  const fs::path run_dir = fs::absolute(fs::path(config_.logs_root) / id);
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec) return error_reply(500, "cannot create the run directory: " + ec.message());
  try {
    if (request.graph_path.empty()) {
      request.graph_path = (run_dir / "pipeline.dot").string();
      std::ofstream(request.graph_path, std::ios::binary) << dot;
    }
    auto inline_file = [&](const char* key, const char* file, std::string& flag) {
      if (!body.contains(key)) return;
      write_json_file(run_dir / file, body[key]);
      flag = (run_dir / file).string();
    };
    inline_file("context", "context.json", request.flags.context_file);
    inline_file("answers", "answers.json", request.flags.answers);
    inline_file("responses", "responses.json", request.flags.responses);
    inline_file("prices", "prices.json", request.flags.prices);
    write_json_file(run_dir / kRequestFile, {{"graph_path", request.graph_path},
                                             {"context_file", request.flags.context_file},
                                             {"workdir", request.workdir},
                                             {"options", manifest_options(request.flags)}});
  } catch (const std::exception& e) {
    fs::remove_all(run_dir, ec);
    return error_reply(500, e.what());
  }
  request.run_dir = run_dir.string();
  auto made = make_run(id, std::move(request), 1);
  if (auto* bad = std::get_if<ApiReply>(&made)) {
    fs::remove_all(run_dir, ec);
    return *bad;
  }
  auto run = std::get<std::shared_ptr<ServedRun>>(made);
  log().info("serve: run {} created ({})", id, run->request.graph_path);
  return enqueue(run, 201);
}

ApiReply RunRegistry::resume(const std::string& id) {
  std::optional<std::string> dir = run_dir_of(id);
  if (!dir) return error_reply(404, "no run " + id);
  {
    std::lock_guard lock(mutex_);
    auto it = runs_.find(id);
    if (it != runs_.end() && it->second->state != "done")
      return error_reply(409, "run " + id + " is " + it->second->state);
  }
  if (never_started(*dir)) return restart_unstarted(id, *dir);
  RunSummary summary = summarize_run(*dir, system_clock().now_ms());
  if (summary.status == "running") return error_reply(409, "run " + id + " is running in another process");
  if (summary.status == "completed") return error_reply(409, "run " + id + " has completed");
  std::variant<LaunchRequest, LaunchFailure> request_or = LaunchFailure{};
  try {
    RunLock held(*dir);  // resume_request may finish a half-made rewind or fork: under the lock
    request_or = resume_request(*dir, RunFlags{}, nullptr, posix_run_disk());
  } catch (const RunLockBusy& e) {
    return error_reply(409, e.what());
  } catch (const std::exception& e) {
    return error_reply(500, e.what());
  }
  if (auto* failure = std::get_if<LaunchFailure>(&request_or)) return launch_failure_reply(*failure);
  if (!std::get<LaunchRequest>(request_or).worktree) {  // a worktree run works in its worktree
    auto workdir = saved_workdir(*dir);
    if (auto* bad = std::get_if<ApiReply>(&workdir)) return *bad;
    std::get<LaunchRequest>(request_or).workdir = std::get<std::string>(workdir);
  }
  auto made = make_run(id, std::move(std::get<LaunchRequest>(request_or)),
                       count_event_lines((fs::path(*dir) / "events.jsonl").string()) + 1);
  if (auto* bad = std::get_if<ApiReply>(&made)) return *bad;
  auto run = std::get<std::shared_ptr<ServedRun>>(made);
  log().info("serve: run {} resumed", id);
  return enqueue(run, 202);
}

ApiReply RunRegistry::restart_unstarted(const std::string& id, const std::string& dir) {
  nlohmann::json saved;
  try {
    saved = parse_json_limited(read_text_file((fs::path(dir) / kRequestFile).string()), kRequestFile);
  } catch (const std::exception& e) {
    return error_reply(400, e.what());
  }
  for (const char* leftover : {"manifest.json", "manifest.json.tmp", "checkpoint.json.tmp", "events.jsonl"}) {
    std::error_code ec;
    fs::remove(fs::path(dir) / leftover, ec);
  }
  LaunchRequest request;
  request.flags = flags_from_options(saved.value("options", nlohmann::json::object()));
  request.flags.context_file = saved.value("context_file", std::string());
  request.graph_path = saved.value("graph_path", std::string());
  request.run_dir = fs::absolute(dir).string();
  auto workdir = saved_workdir(dir);
  if (auto* bad = std::get_if<ApiReply>(&workdir)) return *bad;
  request.workdir = std::get<std::string>(workdir);
  auto made = make_run(id, std::move(request), 1);
  if (auto* bad = std::get_if<ApiReply>(&made)) return *bad;
  auto run = std::get<std::shared_ptr<ServedRun>>(made);
  log().info("serve: run {} started again from its request ({})", id, kNeverStarted);
  return enqueue(run, 202);
}

std::variant<std::shared_ptr<ServedRun>, ApiReply> RunRegistry::make_run(const std::string& id, LaunchRequest request,
                                                                         std::uint64_t first_event_id) {
  auto run = std::make_shared<ServedRun>();
  run->id = id;
  run->run_dir = request.run_dir;
  if (!request.flags.auto_approve && request.flags.answers.empty()) {
    std::uint64_t first_question = 1;
    {
      std::lock_guard lock(mutex_);
      auto earlier = runs_.find(id);
      if (earlier != runs_.end() && earlier->second->interviewer) {
        first_question = earlier->second->interviewer->next_ordinal();
      }
    }
    run->interviewer = std::make_shared<WebInterviewer>(nullptr, first_question);
    ServedRun* raw = run.get();  // the run outlives its engine, which alone calls these
    request.interviewer = std::make_shared<GateSlotInterviewer>(
        run->interviewer, [this, raw] { gate_waiting(*raw); }, [this, raw] { gate_answered(*raw); });
  }
  request.allow_commands = config_.allow_commands;
  request.flags.sandbox_floor = config_.sandbox_floor;
  auto prepared = prepare_run(request);
  if (auto* failure = std::get_if<LaunchFailure>(&prepared)) return launch_failure_reply(*failure);
  run->request = std::move(request);
  run->prepared = std::move(std::get<PreparedRun>(prepared));
  run->events = std::make_shared<EventLog>(first_event_id, config_.event_memory);
  return run;
}

ApiReply RunRegistry::enqueue(std::shared_ptr<ServedRun> run, int status) {
  std::lock_guard lock(mutex_);
  if (shutting_down_) return error_reply(503, "the server is shutting down");
  if (auto old = runs_.find(run->id); old != runs_.end()) {
    if (old->second->state != "done") return error_reply(409, "run " + run->id + " is " + old->second->state);
    if (old->second->thread.joinable()) old->second->thread.join();  // its thread is past finish()
  }
  runs_[run->id] = run;
  queue_.push_back(run->id);
  const bool starts_now = running_ < config_.max_concurrent && queue_.size() == 1 && returning_.empty();
  run->thread = std::thread([this, run] { execute(run); });
  return {status, {{"id", run->id}, {"status", starts_now ? "running" : "queued"}}};
}

bool RunRegistry::take_slot(std::unique_lock<std::mutex>& lock, ServedRun& run, std::deque<std::string>& line) {
  slots_.wait(lock, [&] {
    return run.cancel_requested || shutting_down_ ||
           (!line.empty() && line.front() == run.id && running_ < config_.max_concurrent &&
            (&line == &returning_ || returning_.empty()));
  });
  if (run.cancel_requested || shutting_down_) {
    line.erase(std::remove(line.begin(), line.end(), run.id), line.end());
    slots_.notify_all();
    return false;
  }
  line.pop_front();
  ++running_;
  run.holds_slot = true;
  run.state = "running";
  slots_.notify_all();
  return true;
}

bool RunRegistry::wait_for_slot(const std::shared_ptr<ServedRun>& run) {
  std::unique_lock lock(mutex_);
  return take_slot(lock, *run, queue_);
}

void RunRegistry::gate_waiting(ServedRun& run) {
  std::lock_guard lock(mutex_);
  if (run.gates_waiting++ > 0) return;
  ++at_gate_;
  if (!run.holds_slot) return;
  run.holds_slot = false;
  --running_;
  slots_.notify_all();
}

void RunRegistry::gate_answered(ServedRun& run) {
  std::unique_lock lock(mutex_);
  if (--run.gates_waiting > 0) return;
  --at_gate_;
  if (run.cancel_requested || shutting_down_) return;  // it stops at its next safe point
  run.state = "queued";
  returning_.push_back(run.id);
  take_slot(lock, run, returning_);
  if (run.state == "queued") run.state = "running";  // cancelled meanwhile: it is stopping
}

void RunRegistry::execute(const std::shared_ptr<ServedRun>& run) {
  if (!wait_for_slot(run)) return finish(run, "cancelled", "cancelled while queued");
  auto lock_or = lock_run_directory(run->run_dir);
  if (auto* failure = std::get_if<LaunchFailure>(&lock_or)) return finish(run, "failed", failure->messages.front());
  std::unique_ptr<RunLock> lock = std::move(std::get<std::unique_ptr<RunLock>>(lock_or));
  log().info("serve: run {} started", run->id);
  EngineOptions options = engine_options(run->request, run->prepared);
  auto bus = std::make_shared<EventBus>();
  bus->add(run->events);
  bus->add(std::make_shared<FunctionObserver>([this, run](const Event& e) {
    if (e.name != kStageStartedEvent) return;
    std::lock_guard guard(mutex_);
    run->current_node = e.fields.value("name", std::string());
  }));
  options.observer = bus;
  options.cancel = run->cancel;
  options.interrupt_reason = [this, run] {
    std::lock_guard guard(mutex_);
    return run->cancel_requested ? std::string("cancelled through the API") : std::string(kInterruptedByShutdown);
  };
  options.write_run_log = false;  // the process logger is shared by every run of the server
  try {
    RunResult r = execute_run(run->request, run->prepared, std::move(options));
    bool cancelled = false;
    {
      std::lock_guard guard(mutex_);
      cancelled = run->cancel_requested;
    }
    const std::string status = r.budget_exhausted                         ? "stopped"
                               : r.interrupted || run->cancel.cancelled() ? (cancelled ? "cancelled" : "interrupted")
                               : is_success(r.outcome.status)             ? "completed"
                                                                          : "failed";
    finish(run, status, r.outcome.failure_reason);
  } catch (const std::exception& e) {
    finish(run, "failed", std::string("runtime error: ") + e.what());
  }
}

void RunRegistry::finish(const std::shared_ptr<ServedRun>& run, const std::string& status, const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    if (run->holds_slot) --running_;
    run->holds_slot = false;
    run->state = "done";
    run->final_status = status;
    run->reason = reason;
    run->current_node.clear();
  }
  run->events->close();
  slots_.notify_all();
  log().info("serve: run {} {}{}", run->id, status, reason.empty() ? "" : ": " + reason);
}

ApiReply RunRegistry::cancel(const std::string& id) {
  std::shared_ptr<ServedRun> run;
  {
    std::lock_guard lock(mutex_);
    auto it = runs_.find(id);
    if (it == runs_.end() || it->second->state == "done") {
      return error_reply(run_dir_of(id) ? 409 : 404, "run " + id + " is not queued or running in this server");
    }
    run = it->second;
    run->cancel_requested = true;
    run->cancel.cancel();
  }
  if (run->interviewer) run->interviewer->cancel_all();
  slots_.notify_all();
  log().info("serve: run {} cancel requested", id);
  return {200, {{"id", id}, {"status", "cancelled"}}};
}

namespace {

/// The point a rewind or fork body names, or the 400 reply.
std::variant<std::string, ApiReply> point_of(const nlohmann::json& body, const char* key) {
  constexpr std::size_t kMaxPoint = 256;
  auto it = body.is_object() ? body.find(key) : body.end();
  if (it == body.end() || !it->is_string() || it->get<std::string>().empty() ||
      it->get<std::string>().size() > kMaxPoint) {
    return error_reply(400, fmt::format("the body must be {{\"{}\": \"NODE\" or \"NODE@VISIT\"}}", key));
  }
  return it->get<std::string>();
}

ApiReply refusal_reply(const RunRefusal& refused) {
  return error_reply(refused.busy ? 409 : refused.exit_code == kExitUsage ? 400 : 500, refused.message);
}

}  // namespace

std::optional<ApiReply> RunRegistry::refuse_live(const std::string& id, bool forget) {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(id);
  if (it == runs_.end()) return std::nullopt;
  if (it->second->state != "done")
    return error_reply(409, "run " + id + " is " + it->second->state + ": cancel it first");
  if (forget) {
    if (it->second->thread.joinable()) it->second->thread.join();  // its thread is past finish()
    runs_.erase(it);
  }
  return std::nullopt;
}

std::variant<RunRegistry::StoppedPoint, ApiReply> RunRegistry::stopped_point(const std::string& id,
                                                                             const nlohmann::json& body,
                                                                             const char* key, bool forget) {
  std::optional<std::string> dir = run_dir_of(id);
  if (!dir) return error_reply(404, "no run " + id);
  auto point = point_of(body, key);
  if (auto* bad = std::get_if<ApiReply>(&point)) return *bad;
  if (auto live = refuse_live(id, forget)) return *live;
  return StoppedPoint{*dir, std::get<std::string>(point)};
}

ApiReply RunRegistry::rewind(const std::string& id, const nlohmann::json& body) {
  auto target = stopped_point(id, body, "to", true);
  if (auto* bad = std::get_if<ApiReply>(&target)) return *bad;
  const StoppedPoint& t = std::get<StoppedPoint>(target);
  auto done = rewind_run(t.run_dir, t.point);
  if (auto* refused = std::get_if<RunRefusal>(&done)) return refusal_reply(*refused);
  const RewindDone& r = std::get<RewindDone>(done);
  log().info("serve: run {} rewound to {}", id, r.point);
  return {200,
          {{"id", id},
           {"to", r.point},
           {"number", r.number},
           {"archive", fs::path(r.archive).filename().string()},
           {"ref", r.ref},
           {"old_head", r.old_head},
           {"commit", r.commit},
           {"next_node", r.next_node},
           {"moved", r.moved}}};
}

ApiReply RunRegistry::fork(const std::string& id, const nlohmann::json& body) {
  auto target = stopped_point(id, body, "at", false);
  if (auto* bad = std::get_if<ApiReply>(&target)) return *bad;
  const StoppedPoint& t = std::get<StoppedPoint>(target);
  auto done = fork_run(t.run_dir, t.point, "");
  if (auto* refused = std::get_if<RunRefusal>(&done)) return refusal_reply(*refused);
  const ForkDone& f = std::get<ForkDone>(done);
  const std::string fork_id = fs::path(f.run_dir).filename().string();
  log().info("serve: run {} forked at {} as {}", id, f.point, fork_id);
  return {201,
          {{"id", fork_id},
           {"from", id},
           {"at", f.point},
           {"run_id", f.run_id},
           {"branch", f.branch},
           {"commit", f.commit},
           {"next_node", f.next_node}}};
}

std::optional<std::string> RunRegistry::run_dir_of(const std::string& id) const {
  return run_directory_of(config_.logs_root, id);
}

std::shared_ptr<ServedRun> RunRegistry::served(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(id);
  return it == runs_.end() ? nullptr : it->second;
}

std::string RunRegistry::graph_path(const std::string& id) const {
  if (auto run = served(id)) return run->request.graph_path;
  std::optional<std::string> dir = run_dir_of(id);
  if (!dir || !never_started(*dir)) return "";
  nlohmann::json saved = saved_request(*dir);
  return saved.contains("graph_path") && saved["graph_path"].is_string() ? saved["graph_path"].get<std::string>() : "";
}

std::string RunRegistry::current_node(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(id);
  return it == runs_.end() || it->second->state != "running" ? "" : it->second->current_node;
}

nlohmann::json RunRegistry::live_fields(const ServedRun& run, nlohmann::json j) const {
  j["id"] = run.id;
  j["live"] = run.state != "done";
  if (run.state != "done") {
    j["status"] = run.state;
    if (!run.current_node.empty()) j["node"] = run.current_node;
  } else if (!j.contains("status") || j["status"] == "unreadable" ||
             j.value("reason", nlohmann::json()) == kNeverStarted) {  // never reached the disk
    j["status"] = run.final_status;
    if (!run.reason.empty()) j["reason"] = run.reason;
  }
  j["pending_questions"] = run.interviewer ? run.interviewer->pending_count() : 0;
  return j;
}

std::optional<nlohmann::json> RunRegistry::describe(const std::string& id) const {
  std::optional<std::string> dir = run_dir_of(id);
  if (!dir) return std::nullopt;
  RunSummary summary = summarize_run(*dir, system_clock().now_ms());
  add_workspace_changes(summary);
  nlohmann::json j = summary.to_json();
  if (never_started(*dir)) j = unstarted_summary(*dir);
  j["id"] = id;
  j["live"] = false;
  j["pending_questions"] = 0;
  std::lock_guard lock(mutex_);
  if (auto it = runs_.find(id); it != runs_.end()) j = live_fields(*it->second, std::move(j));
  return j;
}

nlohmann::json RunRegistry::list() const {
  std::vector<RunSummary> on_disk = list_runs(config_.logs_root, system_clock().now_ms(), RunningDetail::kBrief);
  nlohmann::json out = nlohmann::json::array();
  std::set<std::string> listed;
  std::lock_guard lock(mutex_);
  for (const auto& [id, run] : runs_) {  // queued runs have no manifest yet: list them first
    if (fs::exists(fs::path(run->run_dir) / "manifest.json")) continue;
    out.push_back(live_fields(*run, nlohmann::json::object()));
    listed.insert(id);
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(config_.logs_root, ec)) {
    const std::string id = entry.path().filename().string();
    if (listed.count(id) || runs_.count(id) || !entry.is_directory() || !never_started(entry.path())) continue;
    nlohmann::json j = unstarted_summary(entry.path());
    j["id"] = id;
    j["live"] = false;
    j["pending_questions"] = 0;
    out.push_back(std::move(j));
    listed.insert(id);
  }
  for (const RunSummary& s : on_disk) {
    const std::string id = fs::path(s.run_dir).filename().string();
    if (listed.count(id)) continue;
    nlohmann::json j = s.to_json();
    j["completed_count"] = s.completed_nodes.size();
    j.erase("completed_nodes");  // GET /pipelines/{id} has them; the list stays small
    j.erase("completed_statuses");
    j["id"] = id;
    j["live"] = false;
    j["pending_questions"] = 0;
    if (auto it = runs_.find(id); it != runs_.end()) j = live_fields(*it->second, std::move(j));
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json RunRegistry::counts() const {
  std::lock_guard lock(mutex_);
  return {{"running", running_}, {"queued", queue_.size() + returning_.size()}, {"at_gate", at_gate_}};
}

void RunRegistry::shutdown() {
  std::vector<std::shared_ptr<ServedRun>> all;
  {
    std::lock_guard lock(mutex_);
    shutting_down_ = true;
    for (auto& [id, run] : runs_) {
      all.push_back(run);
      run->cancel.cancel();
    }
  }
  slots_.notify_all();
  for (auto& run : all) {
    if (run->interviewer) run->interviewer->cancel_all();
  }
  for (auto& run : all) {
    if (run->thread.joinable()) run->thread.join();
  }
}

}  // namespace attractor
