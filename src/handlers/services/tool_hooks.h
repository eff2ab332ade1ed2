#pragma once
/// \file
/// Tool call hooks (spec §9.7): shell commands run before and after every tool execution, from
/// node attribute `tool_hooks.pre` / `tool_hooks.post`, else the graph's. A tool node's command
/// is one tool call (`TOOL_NAME=shell`); an agent backend's tool calls go through the same runner.
///
/// A hook runs with `/bin/sh -c` in its own process group (ProcessRunner), with the tool's
/// environment (context values only as `ATTRACTOR_CTX_*` variables, never substituted into the
/// hook's text) plus `TOOL_NAME`, `NODE_ID`, `ATTRACTOR_STAGE_DIR` and, after the tool,
/// `EXIT_CODE`. Its standard input is a JSON description of the call
/// (`{"hook", "tool", "node", "stage_dir", "input", "exit_code"}`), kept in the stage directory
/// as `hook-pre.json` / `hook-post.json` next to its `hook-<phase>.stdout.txt` and
/// `hook-<phase>.stderr.txt`.
///
/// A pre hook that exits non-zero (or cannot start, or times out) refuses the call: the tool does
/// not run. A post hook's failure is recorded but changes nothing.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/model/graph.h"
#include "attractor/run/stage_files.h"
#include "handlers/services/subprocess.h"

namespace attractor {

/// The hook commands in force for `node`: node attributes over graph attributes; "" for none.
struct ToolHookCommands {
  std::string pre;
  std::string post;
};
ToolHookCommands tool_hook_commands(const NodeData& node, const Graph& graph);

/// What the hooks are told about one tool call.
struct ToolCall {
  std::string tool;  ///< `shell` for a tool node
  std::string node_id;
  std::string stage_dir;                                 ///< where the hook files go ("" for none)
  nlohmann::json input = nlohmann::json::object();       ///< the call's arguments, e.g. {"command": "make"}
  std::vector<std::pair<std::string, std::string>> env;  ///< the tool's own environment
  std::string cwd;
  std::optional<std::int64_t> timeout_ms;
  CancelToken cancel;
  /// Writes `hook-<phase>.json` (and flushes the run's queue before the hook starts).
  StageFiles files;
  std::function<void(const ProcessGroupRecord&)> on_started;  ///< passed to the hook's ProcessSpec
  SandboxSpec sandbox;  ///< the hook's confinement (the node's, with the hook kind's default)
};

/// How one hook ran.
struct HookRun {
  bool ok = true;
  int exit_code = 0;
  std::string message;              ///< first line of stderr, else of stdout, else "exit code N"
  std::string sandbox = "none";     ///< the hook's sandbox level
  std::vector<std::string> denied;  ///< what the sandbox denied (ProcessResult::sandbox_denials)
  /// `{"command", "exit_code", "ok", "message", "sandbox"}` (and `denied` when not empty) for
  /// status.json and events.
  nlohmann::json to_json(const std::string& command) const;
};

/// Runs `command` as the `phase` ("pre" or "post") hook of `call`; `tool_exit_code` is given to
/// post hooks.
HookRun run_tool_hook(ProcessRunner& runner, const std::string& phase, const std::string& command, const ToolCall& call,
                      std::optional<int> tool_exit_code = std::nullopt);

}  // namespace attractor
