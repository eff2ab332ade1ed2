#include "handlers/services/tool_hooks.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace attractor {

namespace fs = std::filesystem;

namespace {

std::string first_line_of_file(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) return line.size() > 400 ? line.substr(0, 400) : line;
  }
  return "";
}

std::string stage_file(const ToolCall& call, const std::string& name) {
  return call.stage_dir.empty() ? "" : (fs::path(call.stage_dir) / name).string();
}

}  // namespace

ToolHookCommands tool_hook_commands(const NodeData& node, const Graph& graph) {
  auto pick = [&](const char* key) {
    std::string own = node.get(key);
    return own.empty() ? graph.data().get(key) : own;
  };
  return {pick("tool_hooks.pre"), pick("tool_hooks.post")};
}

nlohmann::json HookRun::to_json(const std::string& command) const {
  nlohmann::json j = {
      {"command", command}, {"exit_code", exit_code}, {"ok", ok}, {"message", message}, {"sandbox", sandbox}};
  if (!denied.empty()) j["denied"] = denied;
  return j;
}

HookRun run_tool_hook(ProcessRunner& runner, const std::string& phase, const std::string& command, const ToolCall& call,
                      std::optional<int> tool_exit_code) {
  nlohmann::json description = {{"hook", phase},
                                {"tool", call.tool},
                                {"node", call.node_id},
                                {"stage_dir", call.stage_dir},
                                {"input", call.input}};
  if (tool_exit_code) description["exit_code"] = *tool_exit_code;
  ProcessSpec spec;
  spec.command = command;
  spec.env = call.env;
  spec.env.emplace_back("TOOL_NAME", call.tool);
  spec.env.emplace_back("NODE_ID", call.node_id);
  spec.env.emplace_back("ATTRACTOR_STAGE_DIR", call.stage_dir);
  if (tool_exit_code) spec.env.emplace_back("EXIT_CODE", std::to_string(*tool_exit_code));
  spec.cwd = call.cwd;
  spec.stdin_path = stage_file(call, "hook-" + phase + ".json");
  spec.stdout_path = stage_file(call, "hook-" + phase + ".stdout.txt");
  spec.stderr_path = stage_file(call, "hook-" + phase + ".stderr.txt");
  spec.timeout_ms = call.timeout_ms;
  spec.cancel = call.cancel;
  spec.on_started = call.on_started;
  spec.sandbox = call.sandbox;
  if (!spec.stdin_path.empty()) {
    call.files.write(spec.stdin_path, description.dump() + "\n");
    call.files.flush();
  }

  ProcessResult r = runner.run(spec);
  HookRun run;
  run.exit_code = r.exit_code;
  run.sandbox = sandbox_level_name(spec.sandbox.level);
  run.denied = r.sandbox_denials;
  if (!r.error.empty()) {
    run.ok = false;
    run.message = "could not start: " + r.error;
  } else if (r.timed_out || r.cancelled) {
    run.ok = false;
    run.message = r.timed_out ? fmt::format("timed out after {}ms", call.timeout_ms.value_or(0)) : "cancelled";
  } else if (r.exit_code != 0) {
    run.ok = false;
    run.message = first_line_of_file(spec.stderr_path);
    if (run.message.empty()) run.message = first_line_of_file(spec.stdout_path);
    if (run.message.empty()) {
      run.message = r.term_signal ? fmt::format("killed by signal {}", r.term_signal)
                                  : fmt::format("exit code {}", r.exit_code);
    }
  }
  return run;
}

}  // namespace attractor
