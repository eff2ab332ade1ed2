#include "handlers/manager_loop.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "attractor/engine/edge_selection.h"
#include "attractor/base/comma_list.h"
#include "attractor/run/run_directory.h"
#include "handlers/codergen.h"
#include "handlers/services/child_runs.h"
#include "attractor/engine/event_names.h"
#include "attractor/check/transforms.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

/// What the manager saw of the child at one cycle.
struct ChildSnapshot {
  std::string status;
  std::string current_node;
  std::int64_t completed = 0;
  std::string outcome;
  std::string failure_reason;
  std::uint64_t version = 0;
};

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
    if (e.name == kStageStartedEvent) current_node = e.fields.value("name", std::string());
    if (e.name == kStageCompletedEvent || e.name == kStageFailedEvent) {
      if (e.name == kStageCompletedEvent || !e.fields.value("will_retry", false)) ++completed;
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
  ChildSnapshot snapshot() {
    std::lock_guard lock(mutex);
    return {status, current_node, completed, outcome, failure_reason, version};
  }
  /// Blocks until the child reports progress after `seen_version`, `cancel` fires or `timeout_ms` elapses.
  void wait_for_change(std::uint64_t seen_version, std::int64_t timeout_ms, const CancelToken& cancel) {
    std::unique_lock lock(mutex);
    changed.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                     [&] { return version != seen_version || cancel.cancelled(); });
  }
};

/// Runs the child pipeline on its own thread. Stopping (or destroying) it cancels the child and
/// joins the thread, so a supervision loop that throws (a steering file cannot be written on a full
/// disk) does not destroy a joinable std::thread, which would call std::terminate.
class ChildRunner {
 public:
  ChildRunner(ChildRun& child, ChildRunOptions options, std::shared_ptr<ChildState> state)
      : cancel_(options.cancel), thread_([&child, options, state]() mutable {
          RunResult r;
          try {
            r = child.run(options);
          } catch (const std::exception& e) {
            r.outcome = Outcome::fail(std::string("child pipeline error: ") + e.what());
          }
          state->finish(r);
        }) {}
  ChildRunner(const ChildRunner&) = delete;
  ChildRunner& operator=(const ChildRunner&) = delete;
  ~ChildRunner() { stop(); }

  void stop() {
    cancel_.cancel();
    if (thread_.joinable()) thread_.join();
  }

 private:
  CancelToken cancel_;
  std::thread thread_;
};

bool has_action(const std::string& actions, const std::string& name) {
  const std::vector<std::string> items = split_comma_list(actions, " \t");
  return std::ranges::find(items, name) != items.end();
}

/// The manager's settings; `error` is non-empty when the manager cannot run.
struct ManagerConfig {
  fs::path child_path;
  std::int64_t poll_ms = 45000;
  std::int64_t max_cycles = 1000;
  std::string stop_condition;
  std::string actions;
  std::string error;
};

/// `dotfile` under the child workdir; a relative path that does not exist there falls back to the
/// parent graph file's directory.
fs::path child_dotfile_path(const NodeData& node, const Graph& graph, const std::string& dotfile) {
  std::string workdir = node.get("stack.child_workdir", graph.data().get("stack.child_workdir"));
  fs::path path = workdir.empty() || fs::path(dotfile).is_absolute() ? fs::path(dotfile) : fs::path(workdir) / dotfile;
  if (!fs::exists(path) && path.is_relative() && graph.source()) {
    fs::path beside = fs::path(graph.source()->path()).parent_path() / path;
    if (fs::exists(beside)) path = beside;
  }
  return path;
}

ManagerConfig read_manager_config(const NodeData& node, const Graph& graph) {
  ManagerConfig config;
  std::string dotfile = node.get("stack.child_dotfile", graph.data().get("stack.child_dotfile"));
  if (dotfile.empty()) {
    config.error = "stack.child_dotfile is not set";
    return config;
  }
  config.child_path = child_dotfile_path(node, graph, dotfile);
  config.poll_ms = node.get_duration_ms("manager.poll_interval").value_or(45000);
  config.max_cycles = node.get_integer("manager.max_cycles").value_or(1000);
  config.stop_condition = node.get("manager.stop_condition");
  config.actions = node.get("manager.actions", "observe,wait");
  if (!node.get_boolean("stack.child_autostart").value_or(true)) {
    config.error = "stack.child_autostart=false is not supported yet";
  }
  return config;
}

ChildRunOptions child_run_options(const std::string& child_dir, const StageEnv& env,
                                  std::shared_ptr<ChildState> state) {
  ChildRunOptions options;
  options.run_dir = child_dir;
  options.clock = env.clock;
  options.observer = std::move(state);
  options.cancel = env.cancel.child();
  options.disk = &env.files().disk();  // the child writes where the parent's run directory is
  return options;
}

void observe(Context& context, const ChildSnapshot& child, const std::string& child_dir, std::int64_t cycle) {
  context.set("stack.child.status", child.status);
  context.set("stack.child.current_node", child.current_node);
  context.set("stack.child.completed_count", child.completed);
  context.set("stack.child.outcome", child.outcome);
  context.set("stack.child.run_dir", child_dir);
  context.set("stack.child.cycles", cycle);
}

/// Writes the instructions into the child's running stage once per stage, through the parent's
/// writer, and waits until they are on disk for the child to read.
void steer(const NodeData& node, const Graph& graph, const StageEnv& env, const ChildSnapshot& child,
           const std::string& child_dir, std::string& steered_stage) {
  if (child.status != "running" || child.current_node.empty() || child.current_node == steered_stage) return;
  std::string instructions = expand_goal(node.get("manager.instructions"), graph.data().goal());
  if (instructions.empty()) return;
  env.write_file((fs::path(child_dir) / child.current_node / "steering.md").string(), instructions + "\n");
  env.flush_writes();
  steered_stage = child.current_node;
}

/// The supervision cycles until the child ends, the stop condition holds, the manager is
/// cancelled or the cycles run out.
Outcome supervise(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env,
                  const ManagerConfig& config, const std::string& child_dir, ChildState& state) {
  std::string steered_stage;
  for (std::int64_t cycle = 1; cycle <= config.max_cycles; ++cycle) {
    if (env.cancel.cancelled()) return Outcome::fail("manager cancelled");
    ChildSnapshot child = state.snapshot();
    if (has_action(config.actions, "observe")) observe(context, child, child_dir, cycle);
    if (has_action(config.actions, "steer")) steer(node, graph, env, child, child_dir, steered_stage);
    if (child.status == "completed") return Outcome::success("Child completed");
    if (child.status == "failed") return Outcome::fail("Child failed: " + child.failure_reason);
    if (!config.stop_condition.empty() && evaluate_edge_condition(config.stop_condition, Outcome::success(), context)) {
      return Outcome::success("Stop condition satisfied");
    }
    if (has_action(config.actions, "wait")) state.wait_for_change(child.version, config.poll_ms, env.cancel);
  }
  return Outcome::fail("Max cycles exceeded");
}

}  // namespace

Outcome ManagerLoopHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  ManagerConfig config = read_manager_config(node, graph);
  if (!config.error.empty()) return Outcome::fail(config.error, ErrorCategory::kTerminal);
  if (!services_.child_runs) {
    return Outcome::fail("stack.manager_loop cannot start a child run here (no child-run starter)",
                         ErrorCategory::kTerminal);
  }
  LoadedChildRun child = services_.child_runs->load(config.child_path.string());
  if (!child.run) {
    std::string first = child.problem.empty() ? "" : ": " + child.problem;
    return Outcome::fail("child pipeline " + config.child_path.string() + " is invalid" + first,
                         ErrorCategory::kTerminal);
  }

  std::string child_dir = (fs::path(env.stage_dir) / "child").string();
  fs::remove_all(child_dir);
  auto state = std::make_shared<ChildState>();
  ChildRunner runner(*child.run, child_run_options(child_dir, env, state), state);
  Outcome result = supervise(node, context, graph, env, config, child_dir, *state);
  runner.stop();

  ChildSnapshot final_state = state->snapshot();
  result.context_updates["stack.child.status"] = final_state.status;
  result.context_updates["stack.child.outcome"] = final_state.outcome;
  result.context_updates["stack.child.completed_count"] = final_state.completed;
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
         "Steering text written as steering.md into the child's current stage folder (a tool finds it as "
         "`$ATTRACTOR_NODE_DIR/steering.md`) when actions include steer; $goal expands."},
    };
    return d;
  }();
  return description;
}

}  // namespace attractor
