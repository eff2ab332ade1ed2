#include "handlers/agent/agent_backend.h"

#include <filesystem>

#include "attractor/base/clock.h"
#include "attractor/base/json_limits.h"
#include "attractor/model/outcome.h"
#include "handlers/agent/agent_prompt.h"
#include "handlers/agent/agent_session.h"
#include "handlers/agent/agent_thread.h"
#include "handlers/agent/local_environment.h"
#include "handlers/llm/openai_backend.h"
#include "handlers/services/tool_hooks.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int int_attribute(const NodeData& node, const char* name, int fallback) {
  const std::string text = node.get(name);
  if (text.empty()) return fallback;
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    throw StageError(std::string(name) + "='" + text + "' is not a whole number", ErrorCategory::kTerminal);
  }
}

/// The confinement of the agent's `shell` commands for `request`, in `workdir`.
SandboxSpec shell_sandbox(const CodergenRequest& request, const std::string& workdir) {
  SandboxSpec spec;
  if (request.graph) {
    spec = resolve_sandbox(request.node, *request.graph, CommandKind::kAgentShell, request.sandbox);
  } else {
    spec.level = std::max(request.sandbox.run_level.value_or(default_sandbox_level(CommandKind::kAgentShell)),
                          request.sandbox.floor);
  }
  place_sandbox(spec, workdir, request.stage_dir, request.run_dir);
  return spec;
}

/// The hooks of `request`'s node, run through `runner` with the tool's name and arguments.
AgentHooks hooks_for(const CodergenRequest& request, ProcessRunner& runner, const std::string& workdir) {
  ToolHookCommands commands = tool_hook_commands(*request.node, *request.graph);
  auto call_of = [&request, workdir](const ModelToolCall& c) {
    ToolCall call;
    call.tool = c.name;
    call.node_id = request.node->id;
    call.stage_dir = request.stage_dir;
    call.input = c.arguments;
    call.cwd = workdir;
    call.cancel = request.cancel;
    call.files = request.files;
    call.sandbox = request.graph ? resolve_sandbox(request.node, *request.graph, CommandKind::kHook, request.sandbox)
                                 : SandboxSpec{};
    place_sandbox(call.sandbox, workdir, request.stage_dir, request.run_dir);
    return call;
  };
  AgentHooks hooks;
  if (!commands.pre.empty()) {
    hooks.pre = [&runner, call_of, command = commands.pre](const ModelToolCall& c) -> std::optional<std::string> {
      HookRun r = run_tool_hook(runner, "pre", command, call_of(c));
      return r.ok ? std::nullopt : std::optional<std::string>(r.message);
    };
  }
  if (!commands.post.empty()) {
    hooks.post = [&runner, call_of, command = commands.post](const ModelToolCall& c, const ToolResult& result) {
      run_tool_hook(runner, "post", command, call_of(c), result.is_error ? 1 : 0);
    };
  }
  return hooks;
}

/// The run budget asked before each model call, with the session's tokens so far counted.
std::function<std::string(const AgentRun&)> budget_gate(const CodergenRequest& request, const std::string& model) {
  if (!request.budget_check) return {};
  return [&request, model](const AgentRun& so_far) {
    return request.budget_check({{"input_tokens", so_far.input_tokens},
                                 {"output_tokens", so_far.output_tokens},
                                 {"requests", so_far.turns},
                                 {"model", so_far.model.empty() ? model : so_far.model}});
  };
}

/// "read_file x2"-style lines for the preambles of later stages.
std::vector<std::string> tools_summary(const AgentRun& run) {
  std::vector<std::string> out;
  for (const auto& [tool, calls] : run.tools_used) out.push_back(tool + " x" + std::to_string(calls));
  return out;
}

/// `transcript.jsonl` and `agent.json` of the session, in the stage folder (the latest attempt's)
/// and in the attempt's own folder (docs/run-directory.md, section 2.5).
void write_stage_files(const CodergenRequest& request, const AgentRun& run) {
  if (request.stage_dir.empty()) return;
  std::string transcript;
  for (const json& entry : run.transcript) {
    transcript += entry.dump(-1, ' ', false, json::error_handler_t::replace);
    transcript += '\n';
  }
  const json summary = {{"stop", agent_stop_name(run.stop)},
                        {"stop_detail", run.stop_detail},
                        {"turns", run.turns},
                        {"tool_calls", run.tool_calls},
                        {"tools_used", run.tools_used},
                        {"input_tokens", run.input_tokens},
                        {"output_tokens", run.output_tokens},
                        {"model", run.model}};
  if (request.keep_attempt_file) {
    request.keep_attempt_file("transcript.jsonl", transcript);
    request.keep_attempt_file("agent.json", summary.dump(2) + "\n");
    return;
  }
  request.files.write((fs::path(request.stage_dir) / "transcript.jsonl").string(), transcript);
  request.files.write((fs::path(request.stage_dir) / "agent.json").string(), summary.dump(2) + "\n");
}

/// The failed outcome of a session whose model request threw after earlier turns answered: the
/// error's message and category, so the turns' usage is counted and the retry policy still sees
/// what failed (docs/decisions.md, "Every model request counted").
Outcome failed_request_outcome(const AgentRun& run) {
  try {
    std::rethrow_exception(run.error);
  } catch (const StageError& e) {
    Outcome o = Outcome::fail(e.what(), e.category());
    o.retry_after_ms = e.retry_after_ms();
    return o;
  } catch (const std::exception& e) {
    return Outcome::fail(e.what());
  }
}

}  // namespace

std::optional<Outcome> outcome_from_answer(const std::string& answer) {
  std::string text = answer;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '`')) text.pop_back();
  const std::size_t start = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  json j = parse_json_or_discarded(text.substr(start));
  if (!j.is_object() || !j.contains("outcome")) return std::nullopt;
  try {
    return outcome_from_json(j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

AgentBackend::AgentBackend(std::string vendor, ProviderSettings settings, ProcessRunner* runner,
                           std::string default_workdir)
    : vendor_(std::move(vendor)),
      settings_(std::move(settings)),
      runner_(runner ? runner : &default_process_runner()),
      default_workdir_(default_workdir.empty() ? fs::current_path().string() : std::move(default_workdir)) {}

CodergenResult AgentBackend::run(const CodergenRequest& request) {
  std::string workdir = request.node ? request.node->get("workdir") : "";
  if (workdir.empty() && request.graph) workdir = request.graph->data().get("workdir");
  const fs::path dir = workdir.empty() ? fs::path(default_workdir_) : fs::path(default_workdir_) / workdir;
  if (!fs::is_directory(dir)) {
    throw StageError("agent: working directory '" + dir.string() + "' does not exist", ErrorCategory::kTerminal);
  }
  const std::string model = node_model(request, settings_.default_model);
  LocalExecutionEnvironment env(dir.string(), runner_, request.cancel);
  env.set_process_recorder(request.record_process);
  env.set_sandbox(shell_sandbox(request, env.working_directory()));
  HttpAgentModel llm(vendor_, model, settings_, request.clock);
  AgentLimits limits;
  if (request.node) {
    limits.max_turns = int_attribute(*request.node, "agent.max_turns", 0);
    limits.max_tool_rounds = int_attribute(*request.node, "agent.max_tool_rounds", limits.max_tool_rounds);
  }
  AgentSession session(llm, env, profile_tools(vendor_), limits);
  const std::string node_id = request.node ? request.node->id : "";
  if (request.emit) {
    session.set_events([&request, node_id](const std::string& name, const json& fields) {
      json f = fields;
      f["node"] = node_id;
      request.emit(name, std::move(f));
    });
  }
  if (request.node && request.graph) session.set_hooks(hooks_for(request, *runner_, env.working_directory()));
  Clock& clock = request.clock ? *request.clock : system_clock();
  const std::string date = format_iso8601(clock.now_ms()).substr(0, 10);
  const std::string system = agent_system_prompt(vendor_, env, model, date,
                                                 request.node ? request.node->get("agent.instructions") : "");
  session.set_gate(budget_gate(request, model));
  const std::vector<AgentMessage> history = from_thread_messages(request.history);
  AgentRun run = session.run(system, history, request.prompt, request.cancel);
  write_stage_files(request, run);
  // A request that failed before any turn answered is the backend's error (a fallback may follow).
  if (run.error && run.turns == 0) std::rethrow_exception(run.error);

  CodergenResult result;
  result.response = run.final_text;
  result.usage.input_tokens = run.input_tokens;
  result.usage.output_tokens = run.output_tokens;
  result.usage.requests = run.turns;
  result.model = run.model.empty() ? model : run.model;
  result.backend = name();
  result.tools = tools_summary(run);
  result.sandbox = env.sandbox().to_json();
  result.sandbox["denied"] = env.sandbox_denials();
  if (request.fidelity == "full") {
    result.exchange = to_thread_messages(std::vector<AgentMessage>(
        run.messages.begin() + static_cast<std::ptrdiff_t>(history.size()), run.messages.end()));
  }
  if (run.stop == AgentStop::kCompleted) {
    result.outcome = outcome_from_answer(run.final_text);
  } else if (run.error) {
    result.outcome = failed_request_outcome(run);
  } else if (run.stop != AgentStop::kCancelled) {
    // A spent budget would stop a retry before its first call, so only the other stops retry.
    result.outcome = Outcome::fail(std::string("agent stopped: ") + agent_stop_name(run.stop) +
                                       (run.stop_detail.empty() ? "" : ": " + run.stop_detail),
                                   run.stop == AgentStop::kGate ? ErrorCategory::kTerminal : ErrorCategory::kRetryable);
  }
  return result;
}

std::shared_ptr<CodergenBackend> make_agent_backend(const std::string& vendor, const ProviderSettings& settings,
                                                    ProcessRunner* runner) {
  return std::make_shared<AgentBackend>(vendor, settings, runner);
}

}  // namespace attractor
