#pragma once
/// \file
/// The `cli` backend: runs an installed coding agent as a subprocess (its own process group,
/// killed with the group on node timeout or cancellation). The prompt goes to the agent's stdin
/// (written to `agent_prompt.md` in the attempt's own folder `{stage_dir}/attempt-K/` first);
/// stdout and stderr are kept there as `agent_stdout.txt` / `agent_stderr.txt`. The agent runs in
/// `BackendConfig::workdir` (the project it works on; the attractor process's working directory when empty) with
/// `ATTRACTOR_STAGE_DIR`, `ATTRACTOR_NODE_ID` and `ATTRACTOR_STATUS_FILE` (that folder's `status.json`) set; a
/// `status.json` it writes there decides the stage outcome (the engine's status-file contract).
///
/// Built-in command templates (the model flag only when the node has `llm_model`):
/// - claude: `claude -p --output-format json [--model M]` (JSON reply: `result`, `usage`, `session_id`)
/// - codex:  `codex exec --skip-git-repo-check [--model M] -`
/// - gemini: `gemini [--model M]`
/// `ATTRACTOR_CLI_COMMAND_<AGENT>` (agent name upper-cased, '-' → '_') replaces or adds a template;
/// `{model}`, `{stage_dir}` and `{prompt_file}` are substituted shell-quoted. Output that is one
/// JSON object with a string `result` (Claude Code) or `response` (Gemini CLI) is unwrapped, with
/// `usage.input_tokens`/`output_tokens` read when present; anything else is the reply verbatim
/// (trailing whitespace trimmed). A `full` thread's history is written before the prompt as a
/// transcript, since the agents take a single prompt.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "handlers/services/subprocess.h"
#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/provider.h"

namespace attractor {

struct CliBackendSettings {
  /// Agent name → command template; built-ins are used for agents not listed here.
  std::map<std::string, std::string> commands;
  /// Added to the agent's environment (e.g. a PATH with the agents' directory first).
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;                  ///< "" = inherit
  ProcessRunner* runner = nullptr;  ///< nullptr = the POSIX runner
};

class CliBackend : public CodergenBackend {
 public:
  CliBackend(std::string agent, CliBackendSettings settings);
  std::string name() const override { return "cli"; }
  CodergenResult run(const CodergenRequest& request) override;

 private:
  std::string agent_;
  CliBackendSettings settings_;
};

/// The `cli` provider record (provider_table.h): `cli:<agent>`, bare `cli` = ATTRACTOR_CLI_AGENT
/// (default claude), aliases claude-code, codex and gemini-cli.
ProviderRecord cli_provider();

/// The command template for `agent` ("" when neither configured nor built in), before substitution.
std::string cli_command_template(const std::string& agent, const std::string& model,
                                 const CliBackendSettings& settings);

/// The environment variable that overrides `agent`'s template, e.g. ATTRACTOR_CLI_COMMAND_CLAUDE.
std::string cli_command_variable(const std::string& agent);

/// The first word of a command template (the executable the preflight check looks up on PATH).
std::string command_executable(const std::string& command);

/// `word` quoted for /bin/sh.
std::string shell_quote(const std::string& word);

/// Reply text and usage from an agent's stdout (see the file comment).
CodergenResult parse_cli_output(const std::string& stdout_text);

/// The prompt sent to an agent: the history as a transcript, then the prompt.
std::string cli_prompt_text(const CodergenRequest& request);

}  // namespace attractor
