// `attractor run GRAPH.dot` and `attractor resume RUN_DIR`.
//
// Decisions of this file (see also docs/decisions.md):
// - `--logs-root DIR` is the run directory itself; without it a fresh
//   `./checkpoints/<graph-name>-<UTC yyyymmddTHHMMSS>-<6 hex>/` is created.
// - Without `--auto-approve` or `--answers`, human gates prompt on the terminal (stdin), so
//   answers can also be piped in.
// - LLM stages go to the backend chosen per node (handlers/backend_router.h): `llm_provider`,
//   else the provider of `llm_model`, else `--backend NAME`, else the graph's `llm_provider`.
//   Simulation is never a silent default: `--simulate` (every stage), `--backend simulate` or
//   `llm_provider=simulate` choose it; an LLM stage that nothing routes is reported before any
//   stage runs, with the node ids and the ways to choose, exit code 3, as are missing API keys (or
//   agent commands), naming the variable. `--responses FILE.json` scripts the simulation backend
//   per node (handlers/simulation_backend.h). Stages the simulation answered say `(simulated)` on
//   the console.
// - `--set KEY=VALUE` stores VALUE as text (`1.10` stays "1.10"); `--set-json KEY=JSON` stores a
//   typed value. Keys of `--answers`/`--responses` files that name no node are warned about.
// - The summary at the end adds the run's token usage: `tokens: I input, O output (N LLM calls)`,
//   counting a resumed run's earlier calls too; a run without LLM calls has no such line.
// - The run directory is printed on stderr as `run directory: PATH` at the start and the end
//   (stdout stays clean for `--json-events`). Progress goes to stderr unless `--quiet`; a quiet
//   run that succeeds prints nothing at all, one that fails prints the run directory and the
//   result line.
// - `resume` continues the run as it was started: the manifest's `options` (backend or
//   --simulate, answers or --auto-approve, responses, index, strict) apply unless given again,
//   and it says which it restored. Answers the completed gates consumed are passed over.
//   `--set`/`--set-json`/`--context` are refused there (exit 2) because the checkpoint already
//   holds the context. It refuses a graph whose sha256 differs from the manifest's unless
//   `--force`.
// - `--index DIR` is the retrieval index of the retrieval actions; it overrides graph attribute
//   `index_dir`, which is resolved against the graph file's directory.
// - The default token table (o200k_base, 3.6 MB) is loaded on a second thread while the graph is
//   parsed and checked, since most pipelines need it for their first LLM stage's preamble; a
//   graph that picks another `token_encoding` loads that one when it needs it.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "attractor/base/log.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/engine/engine.h"
#include "handlers/services/interviewer.h"
#include "attractor/check/pipeline_loader.h"
#include "attractor/cli/progress_display.h"
#include "attractor/cli/run_flags.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/resume_check.h"
#include "attractor/run/run_directory.h"
#include <fmt/format.h>

#include "attractor/base/sha256.h"
#include "attractor/run/run_lock.h"
#include "attractor/cli/run_plan.h"
#include "attractor/tokens/token_counter.h"
#include "handlers/llm/backend_router.h"
#include "handlers/registry.h"
#include "handlers/wait_human.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

std::atomic<bool>* g_cancel_flag = nullptr;
volatile sig_atomic_t g_interrupted = 0;

extern "C" void on_sigint(int) {
  g_interrupted = 1;
  if (g_cancel_flag) g_cancel_flag->store(true);
}

/// Bridges SIGINT/SIGTERM to the engine's cancel token (set directly from the handler).
class InterruptWatcher {
 public:
  explicit InterruptWatcher(const CancelToken& token) {
    g_cancel_flag = token.flag();
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptWatcher() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    g_cancel_flag = nullptr;
  }
  bool interrupted() const { return g_interrupted != 0; }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

/// Warns about the keys of an `--answers`/`--responses` file that name no node: a typo there would
/// otherwise leave a gate or a stage unscripted without a word.
void warn_unknown_nodes(const std::vector<std::string>& keys, const Graph& graph, const char* option,
                        const std::string& file) {
  for (const std::string& key : keys) {
    if (graph.find(key)) continue;
    std::fprintf(stderr, "attractor: warning: %s %s: key '%s' names no node of the pipeline\n", option, file.c_str(),
                 key.c_str());
  }
}

/// The answers interviewer; on resume it passes over the answers the completed gates consumed.
std::shared_ptr<Interviewer> make_interviewer(const RunFlags& f, const Graph& graph, const Checkpoint* resumed) {
  if (f.auto_approve) return std::make_shared<AutoApproveInterviewer>();
  if (f.answers.empty()) return std::make_shared<ConsoleInterviewer>(0, stderr);
  std::shared_ptr<QueueInterviewer> queue(load_answers_file(f.answers));
  warn_unknown_nodes(queue->stages(), graph, "--answers", f.answers);
  if (resumed) {
    const HandlerCatalog& handlers = builtin_handler_catalog();
    for (const std::string& id : resumed->completed_nodes) {
      const NodeData* node = graph.node(id);
      if (node && handlers.type_of(*node) == wait_human_description().type) queue->skip(id);
    }
  }
  return queue;
}

HandlerServices make_services(const RunFlags& f, const Graph& graph, const Checkpoint* resumed) {
  HandlerServices services;
  nlohmann::json responses = f.responses.empty() ? nlohmann::json::object() : load_responses_file(f.responses);
  std::vector<std::string> scripted;
  for (const auto& [key, value] : responses.items()) scripted.push_back(key);
  warn_unknown_nodes(scripted, graph, "--responses", f.responses);
  if (f.simulate) {
    services.backend = std::make_shared<SimulationBackend>(responses);
  } else {
    BackendConfig config;
    config.default_provider = f.backend;
    config.responses = responses;
    services.backend = std::make_shared<RoutingBackend>(config);
  }
  services.interviewer = make_interviewer(f, graph, resumed);
  return services;
}

std::shared_ptr<EventBus> make_observers(const RunFlags& f) {
  auto bus = std::make_shared<EventBus>();
  if (f.json_events) bus->add(std::make_shared<JsonStreamObserver>(stdout));
  if (!f.quiet) bus->add(std::make_shared<ProgressDisplay>(stderr, ::isatty(2) != 0, f.verbose));
  return bus;
}

/// `run --dry-run`: the plan on stdout, exit 0.
int print_plan(const Graph& graph, const HandlerServices& services, const RunBudget& budget, bool json) {
  auto router = std::dynamic_pointer_cast<RoutingBackend>(services.backend);
  std::vector<PlannedStage> plan = plan_run(graph, builtin_handler_catalog(), router.get());
  std::string text = json ? plan_json(graph, plan, budget).dump(2) + "\n" : format_plan(graph, plan, budget);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitSuccess;
}

/// The run's budget; a cost cap (flag or graph attribute `max_cost`) needs a price table.
RunBudget checked_budget(const RunFlags& f, const Graph& graph) {
  RunBudget budget = run_budget(f);
  if (budget.with_graph_defaults(graph).max_cost_usd && budget.prices.empty()) {
    throw std::runtime_error("a cost budget (--max-cost or graph attribute max_cost) needs prices: pass --prices "
                             "FILE.json ({\"MODEL\": {\"input\": USD, \"output\": USD}} per million tokens)");
  }
  return budget;
}

/// `tokens: I input, O output (N LLM calls)`, or "" for a run that made no LLM call.
std::string usage_summary(const nlohmann::json& usage) {
  auto count = [&](const char* key) { return usage.is_object() ? usage.value(key, 0LL) : 0LL; };
  const long long calls = count("llm_calls");
  if (calls == 0) return "";
  std::string cost = usage.contains("cost_usd") && usage["cost_usd"].is_number()
                         ? fmt::format(", cost ${:.4f}", usage["cost_usd"].get<double>())
                         : "";
  return fmt::format("tokens: {} input, {} output ({} LLM call{}){}\n", count("input_tokens"), count("output_tokens"),
                     calls, calls == 1 ? "" : "s", cost);
}

int finish(const RunResult& r, const RunFlags& f) {
  const bool quiet_success = f.quiet && !r.interrupted && is_success(r.outcome.status);
  if (!quiet_success) std::fprintf(stderr, "run directory: %s\n", r.run_dir.c_str());
  if (!f.quiet) std::fputs(usage_summary(r.usage).c_str(), stderr);
  if (r.budget_exhausted) {
    std::fprintf(stderr, "stopped: %s; the checkpoint is intact: attractor resume %s with a higher budget\n",
                 r.outcome.failure_reason.c_str(), r.run_dir.c_str());
    return kExitBudget;
  }
  if (r.interrupted) {
    std::fprintf(stderr, "interrupted; the checkpoint is intact: attractor resume %s\n", r.run_dir.c_str());
    return kExitInterrupted;
  }
  if (is_success(r.outcome.status)) {
    if (!f.quiet) std::fprintf(stderr, "result: %s\n", status_name(r.outcome.status));
    return kExitSuccess;
  }
  std::fprintf(stderr, "result: fail: %s\n", r.outcome.failure_reason.c_str());
  return kExitFail;
}

std::optional<LoadedPipeline> load_or_report(std::string_view command, const std::string& path, const RunFlags& f,
                                             const nlohmann::json& seed) {
  std::optional<std::string> text = read_input_or_report(command, path, kDotFileRules);
  if (!text) return std::nullopt;
  LintOptions options;
  options.strict = f.strict;
  for (const auto& [key, value] : seed.items()) options.known_context_keys.push_back(key);
  bool quiet = f.quiet;
  LoadedPipeline loaded = load_pipeline_text(path, std::move(*text), builtin_handler_catalog(), options);
  if (!loaded.ok()) {
    print_diagnostics(loaded.diagnostics, loaded.source.get());
    std::fprintf(stderr, "%s: not run: the pipeline has errors\n", path.c_str());
    return std::nullopt;
  }
  if (!quiet) print_diagnostics(loaded.diagnostics, loaded.source.get());
  return loaded;
}

/// Refuses a run whose LLM stages have no usable backend (exit 3), naming the nodes and the fix.
bool backends_ready(const HandlerServices& services, const Graph& graph) {
  auto router = std::dynamic_pointer_cast<RoutingBackend>(services.backend);
  if (!router) return true;
  std::vector<std::string> problems = router->check(graph, builtin_handler_catalog());
  for (const std::string& p : problems) std::fprintf(stderr, "attractor: %s\n", p.c_str());
  if (problems.empty()) return true;
  std::fprintf(stderr, "attractor: not run: LLM backend configuration is incomplete\n");
  return false;
}

/// Starts the default token table loading on another thread; the future waits for it when dropped.
std::future<void> preload_token_table() {
  // A failed load is retried (and reported) by the stage that needs the table.
  return std::async(std::launch::async, [] {
    try {
      token_counter_for(kDefaultTokenEncoding);
    } catch (const std::exception& e) {
      log().debug("token table {} not preloaded: {}", kDefaultTokenEncoding, e.what());
    }
  });
}

/// Runs `step`; a bad input file or option it reports is printed as one line (a file problem
/// prefixed with `command`) and makes the result false.
template <typename Step>
bool usage_checked(std::string_view command, Step step) {
  try {
    step();
    return true;
  } catch (const InputFileError& e) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(command.size()), command.data(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor: %s\n", e.what());
  }
  return false;
}

int execute(const std::string& graph_path, const std::string& run_dir, const RunFlags& f,
            const Checkpoint* resumed, RunDisk& disk) {
  std::future<void> token_table = preload_token_table();
  const std::string_view command = resumed ? "attractor resume" : "attractor run";
  nlohmann::json seed;
  if (!usage_checked(command, [&] { seed = resumed ? resumed->seed_context : seed_context(f); })) return kExitUsage;
  auto loaded = load_or_report(command, graph_path, f, seed);
  if (!loaded) return kExitUsage;
  const Graph& graph = *loaded->graph;

  if (!f.backend.empty() && !is_known_provider(canonical_provider(f.backend, process_env()))) {
    std::fprintf(stderr, "attractor: unknown --backend '%s' (expected simulate, openai, anthropic, cli or cli:AGENT)\n",
                 f.backend.c_str());
    return kExitUsage;
  }
  HandlerServices services;
  bool ready = usage_checked(command, [&] {
    services = make_services(f, graph, resumed);
    services.retrieval = std::make_shared<GraphRetrievalProvider>(
        f.index_dir, fs::absolute(graph_path).parent_path().lexically_normal().string());
  });
  if (!ready) return kExitUsage;
  RunBudget budget;
  if (!usage_checked(command, [&] { budget = checked_budget(f, graph); })) return kExitUsage;
  if (!backends_ready(services, graph)) return kExitRuntime;
  if (f.dry_run) return print_plan(graph, services, budget.with_graph_defaults(graph), f.plan_json);
  HandlerRegistry registry = make_default_registry(services);

  EngineOptions options;
  options.budget = std::move(budget);
  options.run_dir = run_dir;
  options.disk = &disk;
  options.graph_path = fs::absolute(graph_path).lexically_normal().string();
  options.graph_sha256 = sha256_hex(read_text_file(graph_path));
  options.run_options = manifest_options(f);
  options.observer = make_observers(f);
  std::unique_ptr<RunLock> lock;
  if (&disk == &posix_run_disk()) {
    std::error_code ec;
    fs::create_directories(run_dir, ec);
    if (!ec) {
      try {
        lock = std::make_unique<RunLock>(run_dir);
      } catch (const RunLockBusy& e) {
        std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(command.size()), command.data(), e.what());
        return kExitUsage;
      } catch (const std::exception& e) {
        log().debug("running without a run lock: {}", e.what());  // the run reports the disk problem itself
      }
    }
  }
  InterruptWatcher watcher(options.cancel);
  if (!f.quiet) std::fprintf(stderr, "run directory: %s\n", run_dir.c_str());
  try {
    Engine engine(graph, registry, options);
    RunResult result = resumed ? engine.resume() : engine.run(seed);
    if (watcher.interrupted()) result.interrupted = true;
    return finish(result, f);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor: runtime error: %s\n", e.what());
    return kExitRuntime;
  }
}

}  // namespace

int run_run_command(int argc, char** argv) { return run_run_command(argc, argv, posix_run_disk()); }

int run_run_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{"Run a pipeline. Exit 0 on success, 1 when the pipeline fails, 2 on usage, parse or validation "
               "errors, 3 on runtime errors (including LLM stages without a backend), 130 when interrupted (the "
               "checkpoint stays valid)."};
  app.name("attractor run");
  std::string path;
  RunFlags f;
  app.add_option("GRAPH", path, "pipeline .dot file")->required();
  app.add_option("--logs-root", f.logs_root, "run directory (default ./checkpoints/<name>-<time>-<hex>/)");
  add_common_options(app, f);
  add_seed_options(app, f);
  auto* dry_run = app.add_flag("--dry-run", f.dry_run,
                               "validate and print the plan (each node's handler, backend, model, fidelity, thread, and "
                               "the budget) without calling anything or creating a run directory");
  app.add_flag("--json", f.plan_json, "with --dry-run: the plan as JSON on stdout")->needs(dry_run);
  if (auto code = parse_cli(app, argc, argv)) return *code;

  std::string run_dir = f.logs_root;
  if (run_dir.empty()) {
    std::string name = fs::path(path).stem().string();
    if (auto loaded = load_pipeline(path, builtin_handler_catalog()); loaded.graph && !loaded.graph->name().empty()) name = loaded.graph->name();
    run_dir = (fs::path("checkpoints") / run_directory_name(name, system_clock().now_ms(), random_hex6())).string();
  }
  return execute(path, run_dir, f, nullptr, disk);
}

int run_resume_command(int argc, char** argv) { return run_resume_command(argc, argv, posix_run_disk()); }

int run_resume_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{"Resume an interrupted run from its checkpoint; completed nodes are never re-run. The backend, "
               "answers, responses, index and --strict the run was started with (manifest.json) apply unless "
               "given again. Same exit codes as `attractor run`."};
  app.name("attractor resume");
  std::string run_dir;
  RunFlags f;
  app.add_option("RUN_DIR", run_dir, "run directory holding manifest.json and checkpoint.json")->required();
  app.add_flag("--force", f.force, "resume even though the graph file changed since the run started");
  app.add_option("--logs-root", f.logs_root, "ignored on resume (the run directory is RUN_DIR)")->group("");
  add_common_options(app, f);
  add_seed_options(app, f, false);
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (!f.sets.empty() || !f.set_jsons.empty() || !f.context_file.empty()) {
    std::fprintf(stderr,
                 "attractor resume: --set, --set-json and --context seed a new run's context; a resumed run "
                 "continues with the context saved in its checkpoint\n");
    return kExitUsage;
  }

  if (auto problem = run_directory_problem(run_dir, true)) {
    std::fprintf(stderr, "attractor resume: %s\n", problem->c_str());
    return kExitUsage;
  }
  Manifest manifest;
  Checkpoint checkpoint;
  try {
    manifest = read_manifest(run_dir, disk);
    checkpoint = load_checkpoint(run_dir, disk);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor resume: %s\n", e.what());
    return kExitUsage;
  }
  if (manifest.graph_path.empty() || !fs::exists(manifest.graph_path)) {
    std::fprintf(stderr, "attractor resume: graph file '%s' not found\n", manifest.graph_path.c_str());
    return kExitUsage;
  }
  std::optional<std::string> graph_text = read_input_or_report("attractor resume", manifest.graph_path, kDotFileRules);
  if (!graph_text) return kExitUsage;
  std::string hash = sha256_hex(*graph_text);
  if (hash != manifest.graph_sha256 && !f.force) {
    std::fprintf(stderr,
                 "attractor resume: %s changed since the run started (sha256 %s, manifest %s); use --force to resume "
                 "anyway\n",
                 manifest.graph_path.c_str(), hash.c_str(), manifest.graph_sha256.c_str());
    return kExitUsage;
  }
  if (LoadedPipeline loaded = load_pipeline(manifest.graph_path, builtin_handler_catalog()); loaded.ok()) {
    if (auto problem = check_checkpoint_against_graph(checkpoint, *loaded.graph)) {
      std::fprintf(stderr, "attractor resume: %s: %s\n", (fs::path(run_dir) / "checkpoint.json").string().c_str(),
                   problem->c_str());
      return kExitUsage;
    }
  }
  std::vector<std::string> restored = restore_manifest_options(manifest.options, app, f);
  if (!f.quiet && !restored.empty()) {
    std::string list;
    for (const std::string& r : restored) list += (list.empty() ? "" : ", ") + r;
    std::fprintf(stderr, "resuming as started: %s (from manifest.json)\n", list.c_str());
  }
  return execute(manifest.graph_path, run_dir, f, &checkpoint, disk);
}

}  // namespace attractor
