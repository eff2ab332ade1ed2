#include "handlers/tool.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "attractor/run/run_directory.h"
#include "attractor/model/context_keys.h"
#include "handlers/services/tool_hooks.h"

namespace attractor {

namespace fs = std::filesystem;

std::string context_env_name(const std::string& key) {
  std::string name = "ATTRACTOR_CTX_";
  for (char c : key) {
    unsigned char u = static_cast<unsigned char>(c);
    name.push_back(std::isalnum(u) && u < 128 ? static_cast<char>(std::toupper(u)) : '_');
  }
  return name;
}

std::vector<std::pair<std::string, std::string>> tool_environment(const nlohmann::json& snapshot) {
  std::map<std::string, std::string> env;
  if (snapshot.is_object()) {
    for (auto it = snapshot.begin(); it != snapshot.end(); ++it) {
      std::string value = json_to_context_string(it.value());
      if (value.size() > 64 * 1024 || value.find('\0') != std::string::npos) continue;
      env[context_env_name(it.key())] = std::move(value);
    }
  }
  return {env.begin(), env.end()};
}

std::vector<std::string> last_lines(std::string_view text, std::size_t count) {
  constexpr std::size_t kMaxLineBytes = 400;
  std::vector<std::string> lines;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  while (!text.empty() && lines.size() < count) {
    std::size_t start = text.rfind('\n');
    std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxLineBytes) line = line.substr(line.size() - kMaxLineBytes);
    lines.emplace_back(line);
    text = start == std::string_view::npos ? std::string_view() : text.substr(0, start);
  }
  std::reverse(lines.begin(), lines.end());
  return lines;
}

namespace {

/// The outcome of a finished tool command.
Outcome command_outcome(const ProcessSpec& spec, const ProcessResult& r) {
  std::string out;
  try {
    out = read_text_file(spec.stdout_path);
  } catch (const std::exception&) {
  }
  Outcome o;
  o.context_updates[kToolOutputKey] = out.size() > kToolOutputLimit ? out.substr(0, kToolOutputLimit) : out;
  o.context_updates["tool.exit_code"] = r.exit_code;
  if (r.timed_out || r.cancelled) {
    o.status = StageStatus::kFail;
    o.failure_reason = r.timed_out ? fmt::format("tool timed out after {}ms: {}", *spec.timeout_ms, spec.command)
                                   : "tool cancelled: " + spec.command;
    return o;
  }
  if (r.exit_code != 0) {
    o.status = StageStatus::kFail;
    o.failure_reason = r.term_signal ? fmt::format("tool killed by signal {}", r.term_signal)
                                     : fmt::format("tool exited with code {}", r.exit_code);
    std::string err;
    try {
      err = read_text_file(spec.stderr_path);
    } catch (const std::exception&) {
    }
    o.stage_info["stderr_tail"] = last_lines(err, kFailureTailLines);
    o.stage_info["stdout_tail"] = last_lines(out, kFailureTailLines);
    if (err.size() > 2000) err = err.substr(err.size() - 2000);
    o.notes = err;
    return o;
  }
  o.notes = "Tool completed: " + spec.command;
  return o;
}

/// The outcome of a command that never ran: a `tool_cwd` that cannot be entered names the node
/// and the attribute; anything else is "tool could not start".
Outcome start_failure(const NodeData& node, const ProcessSpec& spec, const ProcessResult& r) {
  if (r.sandbox_unavailable) return Outcome::fail("node '" + node.id + "': " + r.error, ErrorCategory::kTerminal);
  if (!r.cwd_missing) return Outcome::fail("tool could not start: " + r.error);
  std::string reason = r.error.substr(r.error.rfind(": ") == std::string::npos ? 0 : r.error.rfind(": ") + 2);
  return Outcome::fail(fmt::format("node '{}': tool_cwd \"{}\" cannot be entered ({}); create the directory before "
                                   "the stage runs or fix tool_cwd",
                                   node.id, spec.cwd, reason),
                       ErrorCategory::kTerminal);
}

ToolCall shell_call(const NodeData& node, const ProcessSpec& spec, const StageEnv& env) {
  ToolCall call;
  call.tool = "shell";
  call.node_id = node.id;
  call.stage_dir = env.attempt_directory ? env.attempt_directory() : env.stage_dir;
  call.input = {{"command", spec.command}};
  call.env = spec.env;
  call.cwd = spec.cwd;
  call.timeout_ms = spec.timeout_ms;
  call.cancel = spec.cancel;
  call.files = env.files();
  call.on_started = spec.on_started;
  return call;
}

/// The tree a confined command may write: `workdir` ("" = the current directory), or `cwd` when
/// that lies outside it.
std::string command_workspace(const std::string& workdir, const std::string& cwd) {
  fs::path root = fs::absolute(workdir.empty() ? fs::current_path() : fs::path(workdir)).lexically_normal();
  if (cwd.empty()) return root.string();
  fs::path dir = fs::absolute(cwd).lexically_normal();
  auto rel = dir.lexically_relative(root);
  return rel.empty() || *rel.begin() == ".." ? dir.string() : root.string();
}

nlohmann::json sandbox_record(const ProcessSpec& spec, const ProcessResult& r) {
  nlohmann::json j = spec.sandbox.to_json();
  j["denied"] = r.sandbox_denials;
  return j;
}

}  // namespace

Outcome ToolHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::string command = node.get("tool_command");
  if (command.empty()) return Outcome::fail("No tool_command specified", ErrorCategory::kTerminal);

  nlohmann::json snapshot = context.snapshot();
  fs::path stage(env.attempt_directory ? env.attempt_directory() : env.stage_dir);
  std::string context_file = (stage / "context.json").string();
  env.write_file(context_file, snapshot.dump(2) + "\n");

  ProcessSpec spec;
  spec.command = command;
  spec.env = tool_environment(snapshot);
  spec.env.emplace_back("ATTRACTOR_CONTEXT_FILE", context_file);
  spec.env.emplace_back("ATTRACTOR_RUN_DIR", env.run_dir);
  spec.env.emplace_back("ATTRACTOR_STAGE_DIR", stage.string());
  spec.env.emplace_back("ATTRACTOR_NODE_DIR", env.stage_dir);
  spec.env.emplace_back("ATTRACTOR_NODE_ID", node.id);
  spec.env.emplace_back("ATTRACTOR_GOAL", graph.data().goal());
  spec.cwd = node.get("tool_cwd");
  if (!workdir_.empty()) spec.cwd = spec.cwd.empty() ? workdir_ : (fs::path(workdir_) / spec.cwd).string();
  spec.stdout_path = (stage / "stdout.txt").string();
  spec.stderr_path = (stage / "stderr.txt").string();
  spec.timeout_ms = env.timeout_ms;
  spec.cancel = env.cancel;
  spec.on_started = env.record_process;
  spec.sandbox = resolve_sandbox(&node, graph, CommandKind::kToolStage, sandbox_);
  place_sandbox(spec.sandbox, command_workspace(workdir_, spec.cwd), env.stage_dir, env.run_dir);

  ProcessRunner& runner = runner_ ? *runner_ : default_process_runner();
  ToolHookCommands hooks = tool_hook_commands(node, graph);
  ToolCall call = shell_call(node, spec, env);
  call.sandbox = resolve_sandbox(&node, graph, CommandKind::kHook, sandbox_);
  place_sandbox(call.sandbox, spec.sandbox.workspace, env.stage_dir, env.run_dir);
  nlohmann::json hook_runs = nlohmann::json::object();
  if (!hooks.pre.empty()) {
    HookRun pre = run_tool_hook(runner, "pre", hooks.pre, call);
    hook_runs["pre"] = pre.to_json(hooks.pre);
    if (!pre.ok) {
      Outcome refused = Outcome::fail("tool hook `pre` refused the call: " + pre.message);
      refused.stage_info["hooks"] = std::move(hook_runs);
      return refused;
    }
  }
  env.flush_writes();
  ProcessResult r = runner.run(spec);
  Outcome o = r.error.empty() ? command_outcome(spec, r) : start_failure(node, spec, r);
  o.stage_info["sandbox"] = sandbox_record(spec, r);
  if (!hooks.post.empty()) {
    HookRun post = run_tool_hook(runner, "post", hooks.post, call, r.exit_code);
    hook_runs["post"] = post.to_json(hooks.post);
  }
  if (!hook_runs.empty()) o.stage_info["hooks"] = std::move(hook_runs);
  return o;
}

namespace {

/// A tool node without a command fails at its first execution; lint says so before the run.
void check_tool_command(const NodeData& node, const Graph&, std::vector<Diagnostic>& out) {
  if (!node.get("tool_command").empty()) return;
  auto at = node.find("tool_command");
  out.push_back(make_diagnostic("tool_command", Severity::kError, "tool node '" + node.id + "' has no tool_command",
                                node.id, "add tool_command=\"...\" (run with /bin/sh -c) to '" + node.id + "'",
                                value_location(at, node.location)));
}

}  // namespace

const HandlerDescription& tool_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "tool";
    d.shapes = {"parallelogram"};
    d.summary =
        "Runs tool_command with /bin/sh in its own process group; context reaches it only through the environment.";
    d.attributes = {
        {"tool_command", AttributeType::kString, "",
         "Command run with /bin/sh -c (required); context values reach it as ATTRACTOR_CTX_* environment variables."},
        {"tool_cwd", AttributeType::kString, "",
         "Working directory of the command (default: the directory attractor runs in)."},
        {"tool_hooks.pre", AttributeType::kString, "",
         "Shell command run before the tool (node over graph); a non-zero exit skips the tool and fails the "
         "stage. Gets TOOL_NAME, NODE_ID, ATTRACTOR_STAGE_DIR and a JSON description of the call on stdin."},
        {"tool_hooks.post", AttributeType::kString, "",
         "Shell command run after the tool (node over graph), with EXIT_CODE too; its failure is recorded in "
         "status.json (hooks) but does not change the outcome."},
    };
    d.checks = {{"tool_command", check_tool_command}};
    HandlerTraits& t = d.traits;
    t.handles_timeout = true;
    t.runs_tools = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
