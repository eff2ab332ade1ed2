#include "handlers/llm/cli_backend.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attractor/base/ascii.h"
#include "attractor/base/json_limits.h"
#include "attractor/base/log.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/stage_visits.h"
#include "handlers/llm/provider_error.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

std::string rtrim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

std::string read_if_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec) ? read_text_file(path) : std::string();
}

bool on_path(const std::string& executable, const std::string& path) {
  if (executable.find('/') != std::string::npos) return ::access(executable.c_str(), X_OK) == 0;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + executable;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

/// The settings of agent `agent` under `config`: its ATTRACTOR_CLI_COMMAND_<AGENT>, runner and environment.
CliBackendSettings cli_settings(const std::string& agent, const BackendConfig& config) {
  CliBackendSettings settings;
  if (auto custom = config.env(cli_command_variable(agent))) settings.commands[agent] = *custom;
  settings.env = config.cli_env;
  settings.runner = config.runner;
  settings.cwd = config.workdir;
  return settings;
}

/// Why agent `agent` cannot run: no command, or its executable is not on PATH ("" when it can).
std::string cli_agent_problem(const std::string& agent, const BackendConfig& config) {
  std::string command = cli_command_template(agent, "", cli_settings(agent, config));
  if (command.empty())
    return cli_command_variable(agent) + " is not set (cli agent '" + agent + "' has no built-in command)";
  std::string path = config.env("PATH").value_or("");
  for (const auto& [k, v] : config.cli_env) {
    if (k == "PATH") path = v;
  }
  std::string exe = command_executable(command);
  if (!on_path(exe, path)) {
    return "'" + exe + "' (cli agent " + agent + ") was not found on PATH; install it or set " +
           cli_command_variable(agent);
  }
  return "";
}

}  // namespace

std::string shell_quote(const std::string& word) { return "'" + replace_all(word, "'", "'\\''") + "'"; }

std::string cli_command_variable(const std::string& agent) {
  std::string name = "ATTRACTOR_CLI_COMMAND_";
  for (char c : agent) name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string cli_command_template(const std::string& agent, const std::string& model,
                                 const CliBackendSettings& settings) {
  if (auto it = settings.commands.find(agent); it != settings.commands.end()) return it->second;
  std::string model_flag = model.empty() ? "" : " --model {model}";
  if (agent == "claude") return "claude -p --output-format json" + model_flag;
  if (agent == "codex") return "codex exec --skip-git-repo-check" + model_flag + " -";
  if (agent == "gemini") return "gemini" + model_flag;
  return "";
}

std::string command_executable(const std::string& command) {
  std::size_t start = command.find_first_not_of(" \t\n");
  if (start == std::string::npos) return "";
  std::size_t end = command.find_first_of(" \t\n;|&<>", start);
  return command.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

CodergenResult parse_cli_output(const std::string& stdout_text) {
  CodergenResult result;
  result.response = rtrim(stdout_text);
  nlohmann::json j = parse_json_or_discarded(stdout_text);
  if (!j.is_object()) return result;
  const char* key = j.contains("result") && j["result"].is_string()       ? "result"
                    : j.contains("response") && j["response"].is_string() ? "response"
                                                                          : nullptr;
  if (!key) return result;
  result.response = j[key].get<std::string>();
  if (j.value("is_error", false)) {
    throw StageError("cli agent reported an error: " + result.response, ErrorCategory::kRetryable);
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    const nlohmann::json& u = j["usage"];
    for (const char* k : {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}) {
      if (u.contains(k) && u[k].is_number_integer()) result.usage.input_tokens += u[k].get<std::int64_t>();
    }
    if (u.contains("output_tokens") && u["output_tokens"].is_number_integer()) {
      result.usage.output_tokens = u["output_tokens"].get<std::int64_t>();
    }
  }
  if (j.contains("session_id") && j["session_id"].is_string()) result.session_id = j["session_id"].get<std::string>();
  return result;
}

std::string cli_prompt_text(const CodergenRequest& request) {
  if (request.history.empty()) return request.prompt;
  std::string text = "## Conversation so far\n";
  for (const ChatMessage& m : request.history) text += "\n### " + m.role + "\n\n" + m.content + "\n";
  return text + "\n## Current request\n\n" + request.prompt;
}

namespace {

/// One log line when the agent did not run to a clean exit, naming where its output is.
void log_agent_problem(const std::string& agent, const ProcessResult& pr, const ProcessSpec& spec) {
  if (!pr.error.empty()) {
    log().info("cli agent {}: cannot run: {}", agent, pr.error);
  } else if (pr.cancelled) {
    log().info("cli agent {}: cancelled", agent);
  } else if (pr.timed_out) {
    log().info("cli agent {}: no exit within {}ms; stopped", agent, spec.timeout_ms.value_or(0));
  } else if (pr.exit_code != 0) {
    log().info("cli agent {}: {} (stderr in {})", agent,
               pr.exit_code >= 0 ? fmt::format("exit code {}", pr.exit_code)
                                 : fmt::format("killed by signal {}", pr.term_signal),
               spec.stderr_path);
  }
}

}  // namespace

CliBackend::CliBackend(std::string agent, CliBackendSettings settings)
    : agent_(std::move(agent)), settings_(std::move(settings)) {}

CodergenResult CliBackend::run(const CodergenRequest& request) {
  std::string model = !request.model_override.empty() ? request.model_override
                      : request.node                  ? request.node->llm_model()
                                                      : "";
  std::string command = cli_command_template(agent_, model, settings_);
  if (command.empty()) {
    throw StageError("cli agent '" + agent_ + "' has no command template; set " + cli_command_variable(agent_),
                     ErrorCategory::kTerminal);
  }
  fs::path stage(request.attempt_directory ? request.attempt_directory() : request.stage_dir);
  std::string prompt_file = (stage / "agent_prompt.md").string();
  request.files.write(prompt_file, cli_prompt_text(request));
  command = replace_all(command, "{model}", shell_quote(model));
  command = replace_all(command, "{stage_dir}", shell_quote(stage.string()));
  command = replace_all(command, "{prompt_file}", shell_quote(prompt_file));

  ProcessSpec spec;
  spec.command = "exec <" + shell_quote(prompt_file) + "\n" + command;
  spec.env = settings_.env;
  spec.env.emplace_back("ATTRACTOR_STAGE_DIR", stage.string());
  spec.env.emplace_back("ATTRACTOR_STATUS_FILE", (stage / kStageStatusFile).string());
  if (request.node) spec.env.emplace_back("ATTRACTOR_NODE_ID", request.node->id);
  spec.cwd = settings_.cwd;
  spec.stdout_path = (stage / "agent_stdout.txt").string();
  spec.stderr_path = (stage / "agent_stderr.txt").string();
  spec.timeout_ms = backstop_timeout(request.timeout_ms);
  spec.cancel = request.cancel;
  spec.on_started = request.record_process;
  ProcessRunner& runner = settings_.runner ? *settings_.runner : default_process_runner();
  log().debug("cli agent {}: running {}", agent_, command);
  request.files.flush();
  ProcessResult pr = runner.run(spec);
  log_agent_problem(agent_, pr, spec);

  std::string who = "cli agent " + agent_;
  if (!pr.error.empty()) throw StageError(who + ": " + pr.error, ErrorCategory::kTerminal);
  if (pr.cancelled) throw StageError(who + " was cancelled", ErrorCategory::kRetryable);
  if (pr.timed_out) {
    throw StageError(who + " timed out after " + std::to_string(spec.timeout_ms.value_or(0)) + "ms",
                     ErrorCategory::kRetryable);
  }
  std::string out = read_if_exists(spec.stdout_path);
  if (pr.exit_code != 0) {
    std::string err = rtrim(tail(read_if_exists(spec.stderr_path), 500));
    std::string how = pr.exit_code >= 0 ? "exited with code " + std::to_string(pr.exit_code)
                                        : "was killed by signal " + std::to_string(pr.term_signal);
    throw StageError(who + " " + how + (err.empty() ? "" : ": " + err),
                     pr.exit_code == 127 || pr.exit_code == 126 ? ErrorCategory::kTerminal : ErrorCategory::kRetryable);
  }
  CodergenResult result = parse_cli_output(out);
  result.model = model.empty() ? agent_ : model;
  result.backend = name();
  return result;
}

ProviderRecord cli_provider() {
  ProviderRecord r;
  r.name = "cli";
  r.summary =
      "An installed coding agent run as a subprocess (claude, codex, gemini, or any command set in "
      "ATTRACTOR_CLI_COMMAND_<AGENT>).";
  r.aliases = {{"claude-code", "cli:claude"},
               {"claude_code", "cli:claude"},
               {"codex", "cli:codex"},
               {"gemini-cli", "cli:gemini"}};
  r.capabilities.fallback = true;
  r.capabilities.runs_commands = true;
  r.variants = ProviderVariants::kAnyName;
  r.variant_word = "agent";
  r.default_variant = [](const ProviderTable&, const EnvLookup& env, const NodeData*) {
    auto agent = env ? env("ATTRACTOR_CLI_AGENT") : std::nullopt;
    return agent ? ascii_lower(*agent) : std::string("claude");
  };
  r.check = [](const ProviderUse& use) { return cli_agent_problem(use.variant, use.config); };
  r.make = [](const ProviderUse& use) -> std::shared_ptr<CodergenBackend> {
    return std::make_shared<CliBackend>(use.variant, cli_settings(use.variant, use.config));
  };
  return r;
}

}  // namespace attractor
