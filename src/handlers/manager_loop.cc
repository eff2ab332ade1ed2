#include "handlers/manager_loop.h"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "attractor/engine/edge_selection.h"
#include "attractor/engine/engine.h"
#include "attractor/check/pipeline_loader.h"
#include "attractor/run/run_directory.h"
#include "attractor/base/sha256.h"
#include "handlers/codergen.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

/// Child progress shared between the child's engine thread and the manager.
struct ChildState : EventObserver {
  std::mutex mutex;
  std::condition_variable changed;
  std::string status = "running";
  std::string current_node;
  std::int64_t completed = 0;
  std::string outcome;
  std::string failure_reason;
  std::uint64_t version = 0;

  void on_event(const Event& e) override {
    std::lock_guard lock(mutex);
    if (e.name == "StageStarted") current_node = e.fields.value("name", std::string());
    if (e.name == "StageCompleted" || e.name == "StageFailed") {
      if (e.name == "StageCompleted" || !e.fields.value("will_retry", false)) ++completed;
    }
    ++version;
    changed.notify_all();
  }
  void finish(const RunResult& r) {
    std::lock_guard lock(mutex);
    status = r.interrupted ? "failed" : is_success(r.outcome.status) ? "completed" : "failed";
    outcome = r.interrupted ? "cancelled" : status_name(r.outcome.status);
    failure_reason = r.outcome.failure_reason;
    ++version;
    changed.notify_all();
  }
};

bool has_action(const std::string& actions, const std::string& name) {
  std::size_t start = 0;
  while (start <= actions.size()) {
    std::size_t comma = actions.find(',', start);
    if (comma == std::string::npos) comma = actions.size();
    std::string item = actions.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item == name) return true;
    start = comma + 1;
  }
  return false;
}

}  // namespace

Outcome ManagerLoopHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::string dotfile = node.get("stack.child_dotfile", graph.data().get("stack.child_dotfile"));
  if (dotfile.empty()) return Outcome::fail("stack.child_dotfile is not set", ErrorCategory::kTerminal);
  std::string workdir = node.get("stack.child_workdir", graph.data().get("stack.child_workdir"));
  fs::path child_path = workdir.empty() || fs::path(dotfile).is_absolute() ? fs::path(dotfile) : fs::path(workdir) / dotfile;
  if (!fs::exists(child_path) && child_path.is_relative() && graph.source()) {
    fs::path beside = fs::path(graph.source()->path()).parent_path() / child_path;
    if (fs::exists(beside)) child_path = beside;
  }
  std::int64_t poll_ms = node.get_duration_ms("manager.poll_interval").value_or(45000);
  std::int64_t max_cycles = node.get_integer("manager.max_cycles").value_or(1000);
  std::string stop_condition = node.get("manager.stop_condition");
  std::string actions = node.get("manager.actions", "observe,wait");
  bool autostart = node.get_boolean("stack.child_autostart").value_or(true);
  if (!autostart) return Outcome::fail("stack.child_autostart=false is not supported yet", ErrorCategory::kTerminal);

  LoadedPipeline child = load_pipeline(child_path.string(), builtin_handler_catalog());
  if (!child.ok()) {
    std::string first = child.diagnostics.empty() ? "" : ": " + child.diagnostics.front().message;
    return Outcome::fail("child pipeline " + child_path.string() + " is invalid" + first, ErrorCategory::kTerminal);
  }
  std::string child_dir = (fs::path(env.stage_dir) / "child").string();
  fs::remove_all(child_dir);
  auto state = std::make_shared<ChildState>();
  HandlerRegistry registry = make_default_registry(services_);
  EngineOptions options;
  options.run_dir = child_dir;
  options.graph_path = fs::absolute(child_path).string();
  options.graph_sha256 = sha256_hex(read_text_file(child_path.string()));
  options.clock = env.clock;
  options.observer = state;
  options.cancel = env.cancel.child();
  // The manager reads and steers the child's directory while it runs, so the child writes inline.
  options.background_writes = false;
  CancelToken child_cancel = options.cancel;
  std::thread runner([&, options]() mutable {
    RunResult r;
    try {
      Engine engine(*child.graph, registry, options);
      r = engine.run(nlohmann::json::object());
    } catch (const std::exception& e) {
      r.outcome = Outcome::fail(std::string("child pipeline error: ") + e.what());
    }
    state->finish(r);
  });
  // If the supervision loop throws (a steering file cannot be written on a full disk), the child is
  // cancelled and joined before unwinding: destroying a joinable std::thread calls std::terminate.
  struct JoinOnExit {
    CancelToken cancel;
    std::thread& thread;
    ~JoinOnExit() {
      cancel.cancel();
      if (thread.joinable()) thread.join();
    }
  } join_on_exit{child_cancel, runner};

  std::string steered_stage;
  Outcome result = Outcome::fail("Max cycles exceeded");
  std::uint64_t seen_version = 0;
  for (std::int64_t cycle = 1; cycle <= max_cycles; ++cycle) {
    if (env.cancel.cancelled()) {
      result = Outcome::fail("manager cancelled");
      break;
    }
    std::string status, current, outcome, reason;
    std::int64_t completed;
    {
      std::lock_guard lock(state->mutex);
      status = state->status;
      current = state->current_node;
      outcome = state->outcome;
      reason = state->failure_reason;
      completed = state->completed;
      seen_version = state->version;
    }
    if (has_action(actions, "observe")) {
      context.set("stack.child.status", status);
      context.set("stack.child.current_node", current);
      context.set("stack.child.completed_count", completed);
      context.set("stack.child.outcome", outcome);
      context.set("stack.child.run_dir", child_dir);
      context.set("stack.child.cycles", cycle);
    }
    if (has_action(actions, "steer") && status == "running" && !current.empty() && current != steered_stage) {
      std::string instructions = expand_goal(node.get("manager.instructions"), graph.data().goal());
      if (!instructions.empty()) {
        write_text_file((fs::path(child_dir) / current / "steering.md").string(), instructions + "\n");
        steered_stage = current;
      }
    }
    if (status == "completed") {
      result = Outcome::success("Child completed");
      break;
    }
    if (status == "failed") {
      result = Outcome::fail("Child failed: " + reason);
      break;
    }
    if (!stop_condition.empty() && evaluate_edge_condition(stop_condition, Outcome::success(), context)) {
      result = Outcome::success("Stop condition satisfied");
      break;
    }
    if (has_action(actions, "wait")) {
      std::unique_lock lock(state->mutex);
      state->changed.wait_for(lock, std::chrono::milliseconds(poll_ms),
                              [&] { return state->version != seen_version || env.cancel.cancelled(); });
    }
  }
  child_cancel.cancel();
  runner.join();
  {
    std::lock_guard lock(state->mutex);
    result.context_updates["stack.child.status"] = state->status;
    result.context_updates["stack.child.outcome"] = state->outcome;
    result.context_updates["stack.child.completed_count"] = state->completed;
  }
  return result;
}

const HandlerDescription& manager_loop_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "stack.manager_loop";
    d.shapes = {"house"};
    d.summary = "A supervisor: runs a child pipeline and watches its progress until a stop condition holds.";
    d.attributes = {
        {"stack.child_dotfile", AttributeType::kString, "",
         "Child pipeline to run, relative to stack.child_workdir or the pipeline file (default: the graph's); "
         "required."},
        {"stack.child_workdir", AttributeType::kString, "",
         "Directory stack.child_dotfile is relative to (default: the graph's)."},
        {"stack.child_autostart", AttributeType::kBoolean, "true",
         "The manager starts the child itself; false is not supported yet."},
        {"manager.poll_interval", AttributeType::kDuration, "45s",
         "Longest wait for the child to make progress between supervision cycles."},
        {"manager.max_cycles", AttributeType::kNonNegativeInteger, "1000",
         "Supervision cycles before the stage fails."},
        {"manager.stop_condition", AttributeType::kCondition, "",
         "Ends supervision with success once it holds (evaluated on the context, see Conditions)."},
        {"manager.actions", AttributeType::kString, "observe,wait",
         "Comma-separated: observe mirrors the child into stack.child.* context keys, steer writes "
         "manager.instructions to the child's current stage, wait polls."},
        {"manager.instructions", AttributeType::kString, "",
         "Steering text written as steering.md into the child's current stage when actions include steer; "
         "$goal expands."},
    };
    return d;
  }();
  return description;
}

}  // namespace attractor
