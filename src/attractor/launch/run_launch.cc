#include "attractor/launch/run_launch.h"

#include <filesystem>
#include <future>

#include <fmt/format.h>

#include "attractor/base/clock.h"
#include "attractor/base/input_file.h"
#include "attractor/base/log.h"
#include "attractor/base/sha256.h"
#include "attractor/launch/child_run_starter.h"
#include "attractor/launch/run_fork.h"
#include "attractor/launch/run_workspace.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/resume_check.h"
#include "attractor/tokens/token_counter.h"
#include "handlers/agent/agent_backend.h"
#include "handlers/llm/backend_router.h"
#include "handlers/llm/simulation_backend.h"
#include "handlers/rag/retrieval_support.h"
#include "handlers/wait_human.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

LaunchFailure failure(int code, std::string message, std::string prefix = "") {
  LaunchFailure f;
  f.exit_code = code;
  f.prefix = std::move(prefix);
  f.messages.push_back(std::move(message));
  return f;
}

/// The keys of an `--answers`/`--responses` file that name no node: a typo there would otherwise
/// leave a gate or a stage unscripted without a word.
void warn_unknown_nodes(const std::vector<std::string>& keys, const Graph& graph, const char* option,
                        const std::string& file, std::vector<std::string>& warnings) {
  for (const std::string& key : keys) {
    if (!graph.find(key))
      warnings.push_back(fmt::format("{} {}: key '{}' names no node of the pipeline", option, file, key));
  }
}

/// The answers interviewer; on resume it passes over the answers the completed gates consumed.
std::shared_ptr<Interviewer> make_interviewer(const LaunchRequest& r, const Graph& graph,
                                              std::vector<std::string>& warnings) {
  if (r.interviewer) return r.interviewer;
  const RunFlags& f = r.flags;
  if (f.auto_approve) return std::make_shared<AutoApproveInterviewer>();
  if (f.answers.empty()) return std::make_shared<ConsoleInterviewer>(0, stderr);
  std::shared_ptr<QueueInterviewer> queue(load_answers_file(f.answers));
  warn_unknown_nodes(queue->stages(), graph, "--answers", f.answers, warnings);
  if (r.resumed) {
    const HandlerCatalog& handlers = builtin_handler_catalog();
    for (const std::string& id : r.resumed->completed_nodes) {
      const NodeData* node = graph.node(id);
      if (node && handlers.type_of(*node) == wait_human_description().type) queue->skip(id);
    }
  }
  return queue;
}

HandlerServices make_services(const LaunchRequest& r, const Graph& graph, std::vector<std::string>& warnings) {
  const RunFlags& f = r.flags;
  HandlerServices services;
  nlohmann::json responses = f.responses.empty() ? nlohmann::json::object() : load_responses_file(f.responses);
  std::vector<std::string> scripted;
  for (const auto& [key, value] : responses.items()) scripted.push_back(key);
  warn_unknown_nodes(scripted, graph, "--responses", f.responses, warnings);
  if (f.simulate) {
    services.backend = std::make_shared<SimulationBackend>(responses);
  } else {
    BackendConfig config;
    config.default_provider = f.backend;
    config.responses = responses;
    config.workdir = r.workdir;
    config.agent_factory = make_agent_backend;
    if (!r.workdir.empty()) {
      config.agent_factory = [workdir = r.workdir](const std::string& vendor, const ProviderSettings& settings,
                                                   ProcessRunner* runner) -> std::shared_ptr<CodergenBackend> {
        return std::make_shared<AgentBackend>(vendor, settings, runner, workdir);
      };
    }
    services.backend = std::make_shared<RoutingBackend>(config);
  }
  services.interviewer = make_interviewer(r, graph, warnings);
  services.workdir = r.workdir;
  services.sandbox.run_level = parse_sandbox_level(f.sandbox);
  services.sandbox.floor = parse_sandbox_level(f.sandbox_floor).value_or(SandboxLevel::kNone);
  services.retrieval = std::make_shared<GraphRetrievalProvider>(
      f.index_dir, fs::absolute(r.graph_path).parent_path().lexically_normal().string());
  return with_child_runs(std::move(services));
}

/// The run's budget; a cost cap (flag or graph attribute `max_cost`) needs a price table.
RunBudget checked_budget(const RunFlags& f, const Graph& graph) {
  RunBudget budget = run_budget(f);
  if (budget.with_graph_defaults(graph).max_cost_usd && budget.prices.empty()) {
    throw std::runtime_error(
        "a cost budget (--max-cost or graph attribute max_cost) needs prices: pass --prices "
        "FILE.json ({\"MODEL\": {\"input\": USD, \"output\": USD}} per million tokens)");
  }
  return budget;
}

/// The LLM stages without a usable backend, one line each (empty when all are routed).
std::vector<std::string> backend_problems(const HandlerServices& services, const Graph& graph) {
  return services.backend ? services.backend->check(graph, builtin_handler_catalog()) : std::vector<std::string>{};
}

std::variant<PreparedRun, LaunchFailure> prepare_loaded(LaunchRequest& r, std::string text) {
  PreparedRun prepared;
  prepared.tables = r.preload.valid() ? r.preload : preload_run_tables();
  try {
    prepared.seed = r.resumed ? r.resumed->seed_context : seed_context(r.flags);
  } catch (const InputFileError& e) {
    return failure(kExitUsage, e.what());
  } catch (const std::exception& e) {
    return failure(kExitUsage, e.what(), "attractor");
  }
  LintOptions options;
  options.strict = r.flags.strict;
  for (const auto& [key, value] : prepared.seed.items()) options.known_context_keys.push_back(key);
  prepared.pipeline = load_pipeline_text(r.graph_path, std::move(text), builtin_handler_catalog(), options);
  if (!prepared.pipeline.ok()) {
    LaunchFailure f = failure(kExitUsage, "not run: the pipeline has errors", r.graph_path);
    f.diagnostics = prepared.pipeline.diagnostics;
    f.source = prepared.pipeline.source;
    return f;
  }
  if (r.resumed) {
    if (auto problem = check_checkpoint_against_graph(*r.resumed, prepared.graph())) {
      return failure(kExitUsage, (fs::path(r.run_dir) / "checkpoint.json").string() + ": " + *problem);
    }
  }
  if (r.run_dir.empty()) {
    // The name carries the second and 24 random bits; a name that exists already is drawn again.
    do r.run_dir = default_run_directory(prepared.graph(), r.graph_path);
    while (fs::exists(r.run_dir));
  }
  if (auto refused = plan_run_workspace(r, prepared)) return std::move(*refused);
  const RunFlags& f = r.flags;
  const ProviderTable& providers = *builtin_providers();
  if (!f.backend.empty() && !providers.is_known(providers.canonical(f.backend, process_env()))) {
    return failure(kExitUsage, "unknown --backend '" + f.backend + "' (expected " + providers.choices(true) + ")",
                   "attractor");
  }
  try {
    prepared.services = make_services(r, prepared.graph(), prepared.warnings);
    prepared.budget = checked_budget(f, prepared.graph());
  } catch (const InputFileError& e) {
    return failure(kExitUsage, e.what());
  } catch (const std::exception& e) {
    return failure(kExitUsage, e.what(), "attractor");
  }
  if (!r.allow_commands) {
    if (std::vector<CommandUse> uses = command_uses(prepared.graph(), prepared.services); !uses.empty()) {
      LaunchFailure lf = failure(
          kExitUsage, "this server does not run pipelines that run commands: " + describe_command_uses(uses) +
                          "; start attractor serve with --allow-commands to allow them");
      lf.commands = std::move(uses);
      return lf;
    }
  }
  for (const CommandUse& use : command_uses(prepared.graph(), prepared.services)) {
    if (!use.cli_agent || use.sandbox == "none") continue;
    return failure(kExitUsage, "node '" + use.node + "' (" + use.what +
                                   ") runs an external agent program, which no sandbox confines, but its commands "
                                   "must run at sandbox `" +
                                   use.sandbox +
                                   "`; use llm_provider=agent (whose shell the sandbox confines), or sandbox=none on "
                                   "the node (a server needs --sandbox none for it)");
  }
  // A dry run explains the same problems stage by stage in its plan (attractor run --dry-run).
  if (std::vector<std::string> problems = backend_problems(prepared.services, prepared.graph());
      !problems.empty() && !f.dry_run) {
    LaunchFailure lf;
    lf.exit_code = kExitRuntime;
    lf.prefix = "attractor";
    lf.messages = std::move(problems);
    lf.messages.push_back("not run: LLM backend configuration is incomplete");
    return lf;
  }
  return prepared;
}

}  // namespace

std::shared_future<void> preload_run_tables() {
  return std::async(std::launch::async,
                    [] {
                      builtin_handler_catalog();
                      try {
                        token_counter_for(kDefaultTokenEncoding);
                      } catch (const std::exception& e) {
                        log().debug("token table {} not preloaded: {}", kDefaultTokenEncoding, e.what());
                      }
                    })
      .share();
}

std::variant<PreparedRun, LaunchFailure> prepare_run(LaunchRequest& request) {
  std::string text;
  if (request.graph_text) {
    text = std::move(*request.graph_text);
    request.graph_text.reset();
  } else {
    InputFile input = (request.files ? *request.files : system_input_files()).read(request.graph_path, kDotFileRules);
    if (!input.ok()) return failure(kExitUsage, input.message);
    text = std::move(input.text);
  }
  return prepare_loaded(request, std::move(text));
}

std::string default_run_directory(const Graph& graph, const std::string& graph_path) {
  std::string name = graph.name().empty() ? fs::path(graph_path).stem().string() : graph.name();
  return (fs::path("checkpoints") / run_directory_name(name, system_clock().now_ms(), random_hex6())).string();
}

std::variant<std::unique_ptr<RunLock>, LaunchFailure> lock_run_directory(const std::string& run_dir) {
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec) return std::unique_ptr<RunLock>();
  try {
    return std::make_unique<RunLock>(run_dir);
  } catch (const RunLockBusy& e) {
    return failure(kExitUsage, e.what());
  } catch (const std::exception& e) {
    log().debug("running without a run lock: {}", e.what());
    return std::unique_ptr<RunLock>();
  }
}

EngineOptions engine_options(const LaunchRequest& request, PreparedRun& prepared) {
  EngineOptions options;
  options.budget = prepared.budget;
  options.run_dir = request.run_dir;
  options.graph_path = fs::absolute(request.graph_path).lexically_normal().string();
  options.graph_sha256 = sha256_hex(prepared.pipeline.source ? prepared.pipeline.source->text()
                                                             : read_text_file(request.graph_path));
  options.run_options = manifest_options(request.flags);
  options.snapshot_every = request.flags.snapshot_every;
  options.checkpoint_rewrite_below = request.flags.checkpoint_rewrite_below;
  options.run_id = request.run_id;
  if (prepared.worktree) options.workspace_record = prepared.worktree->to_json();
  return options;
}

RunResult execute_run(const LaunchRequest& request, PreparedRun& prepared, EngineOptions options) {
  HandlerRegistry registry = make_default_registry(prepared.services);
  std::unique_ptr<Workspace> workspace = open_run_workspace(request, prepared);
  options.workspace = workspace.get();
  Engine engine(prepared.graph(), registry, std::move(options));
  if (!request.resumed) return engine.run(prepared.seed);
  return request.resumed_under_lock ? engine.resume(*request.resumed) : engine.resume();
}

std::variant<LaunchRequest, LaunchFailure> resume_request(const std::string& run_dir, RunFlags flags,
                                                          const CLI::App* given, RunDisk& disk,
                                                          std::vector<std::string>* restored, InputFileReader* files) {
  try {
    finish_run_changes(run_dir, disk);
  } catch (const std::exception& e) {
    return failure(kExitRuntime, "cannot finish the interrupted rewind or fork of " + run_dir + ": " + e.what());
  }
  Manifest manifest;
  LaunchRequest request;
  try {
    manifest = read_manifest(run_dir, disk);
    request.resumed = load_checkpoint(run_dir, disk);
  } catch (const std::exception& e) {
    return failure(kExitUsage, e.what());
  }
  if (manifest.graph_path.empty() || !fs::exists(manifest.graph_path)) {
    return failure(kExitUsage, "graph file '" + manifest.graph_path + "' not found");
  }
  InputFile input = (files ? *files : system_input_files()).read(manifest.graph_path, kDotFileRules);
  if (!input.ok()) return failure(kExitUsage, input.message);
  std::string hash = sha256_hex(input.text);
  if (hash != manifest.graph_sha256 && !flags.force) {
    return failure(kExitUsage, fmt::format("{} changed since the run started (sha256 {}, manifest {}); use --force to "
                                           "resume anyway",
                                           manifest.graph_path, hash, manifest.graph_sha256));
  }
  CLI::App none;
  if (!given) {
    add_common_options(none, flags);
    none.parse(std::vector<std::string>{});
  }
  std::vector<std::string> lines = restore_manifest_options(manifest.options, given ? *given : none, flags);
  if (restored) *restored = std::move(lines);
  if (manifest.workspace.is_object()) {
    try {
      request.worktree = WorktreePlan::from_json(manifest.workspace);
    } catch (const std::exception& e) {
      return failure(kExitUsage, (fs::path(run_dir) / "manifest.json").string() + ": " + e.what());
    }
    request.workdir = request.worktree->workdir();
  }
  request.graph_path = manifest.graph_path;
  request.graph_text = std::move(input.text);
  request.files = files;
  request.run_dir = run_dir;
  request.flags = std::move(flags);
  return request;
}

}  // namespace attractor
