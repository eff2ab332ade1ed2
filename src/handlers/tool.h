#pragma once
/// \file
/// `tool` (§4.10): runs `tool_command` with `/bin/sh -c` in its own process group, in the current
/// directory (or node attribute `tool_cwd`). stdout and stderr go to `stdout.txt` and
/// `stderr.txt` in the attempt's own folder (`{stage}/attempt-K/`, StageEnv::attempt_directory),
/// which is the command's `ATTRACTOR_STAGE_DIR`; `tool.output` receives stdout truncated to
/// `kToolOutputLimit` bytes and `tool.exit_code` the exit status. A non-zero exit is FAIL with the
/// code in the reason; the node `timeout` (or cancellation) kills the whole process group.
///
/// Context reaches the command only through environment variables, never through the command
/// text, so no context value can inject shell syntax:
/// - `ATTRACTOR_CTX_<KEY>` for every context value, where KEY is the context key upper-cased with
///   every character outside [A-Z0-9] replaced by `_` (`context.user_input` ->
///   `ATTRACTOR_CTX_CONTEXT_USER_INPUT`, `graph.goal` -> `ATTRACTOR_CTX_GRAPH_GOAL`). Values are
///   the condition string form (strings raw, others compact JSON); values above 64 KB are left
///   out; when two keys map to the same name the lexically later key wins.
/// - `ATTRACTOR_CONTEXT_FILE`: `context.json` in the attempt folder, the whole context as JSON.
/// - `ATTRACTOR_RUN_DIR`, `ATTRACTOR_STAGE_DIR` (the attempt folder), `ATTRACTOR_NODE_ID`,
///   `ATTRACTOR_GOAL`, and `ATTRACTOR_NODE_DIR`: the stage folder `{run_dir}/{node_id}` itself,
///   where a supervising manager loop writes `steering.md`.
/// A command may also write `status.json` into `$ATTRACTOR_STAGE_DIR` to set its outcome; the
/// engine reads it from that attempt's folder only, so a command of an earlier (or killed) attempt
/// can never set a later attempt's outcome. A `tool_cwd` that cannot be entered fails the stage
/// with a message naming the node and the attribute.
///
/// `stage_info.sandbox` records the command's confinement (level, network, extra paths) and the
/// lines of stderr that say the sandbox denied something (`denied`); a sandbox that cannot be set
/// up fails the stage before the command runs.
///
/// A failed command's outcome carries `stage_info.stderr_tail` and `stage_info.stdout_tail`, the
/// last kFailureTailLines lines of each stream, so the StageFailed event (and the progress display
/// under the failed stage's line) shows why it failed.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/services/subprocess.h"

namespace attractor {

inline constexpr std::size_t kToolOutputLimit = 8192;
/// Lines of stderr and of stdout a failed tool stage reports in its StageFailed event.
inline constexpr std::size_t kFailureTailLines = 10;

class ToolHandler : public Handler {
 public:
  /// Commands run in `workdir` ("" = the process's current directory) unless `tool_cwd` says
  /// otherwise; a relative `tool_cwd` is relative to `workdir`.
  /// The command and its hooks run confined as `sandbox` and the node's `sandbox` attributes say
  /// (handlers/services/sandbox.h); the workspace is `workdir`, or `tool_cwd` when it lies outside.
  explicit ToolHandler(ProcessRunner* runner = nullptr, std::string workdir = "", SandboxOptions sandbox = {})
      : runner_(runner), workdir_(std::move(workdir)), sandbox_(sandbox) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;

 private:
  ProcessRunner* runner_;
  std::string workdir_;
  SandboxOptions sandbox_;
};

/// The last `count` lines of `text` (trailing newlines ignored; each line cut to its last 400 bytes).
std::vector<std::string> last_lines(std::string_view text, std::size_t count);

/// `ATTRACTOR_CTX_` + the key mangled as described above.
std::string context_env_name(const std::string& key);
/// The environment variables a tool command receives for `context`.
std::vector<std::pair<std::string, std::string>> tool_environment(const nlohmann::json& context_snapshot);

/// The description of the `tool` handler type (registry, lint, engine and reference read it).
const HandlerDescription& tool_description();

}  // namespace attractor
