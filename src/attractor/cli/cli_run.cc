// `attractor run GRAPH.dot` and `attractor resume RUN_DIR`.
//
// Decisions of this file (see also docs/decisions.md):
// - `--logs-root DIR` is the run directory itself; without it a fresh
//   `./checkpoints/<graph-name>-<UTC yyyymmddTHHMMSS>-<6 hex>/` is created.
// - Without `--auto-approve` or `--answers`, human gates prompt on the terminal (stdin), so
//   answers can also be piped in.
// - LLM stages go to the backend chosen per node (handlers/backend_router.h): `llm_provider`,
//   else the provider of `llm_model`, else `--backend NAME`, else the graph's `llm_provider`, else
//   the simulation backend. `--simulate` forces simulation everywhere. Missing API keys (or agent
//   commands) are reported before any stage runs, naming the variable, with exit code 3.
//   `--responses FILE.json` scripts the simulation backend per node (handlers/simulation_backend.h).
// - The summary at the end adds the run's token usage: `tokens: I input, O output (N LLM calls)`.
// - The run directory is printed on stderr as `run directory: PATH` at the start and the end
//   (stdout stays clean for `--json-events`). Progress goes to stderr unless `--quiet`.
// - `resume` takes the same options; `--set`/`--context` are refused there (exit 2) because the
//   checkpoint already holds the context. It refuses a graph whose sha256 differs from the
//   manifest's unless `--force`.
// - `--index DIR` is the retrieval index of the retrieval actions; it overrides graph attribute
//   `index_dir`, which is resolved against the graph file's directory. Give it again to `resume`.
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
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/resume_check.h"
#include "attractor/run/run_directory.h"
#include "attractor/base/sha256.h"
#include "attractor/tokens/token_counter.h"
#include "attractor/engine/usage_tally.h"
#include "handlers/llm/backend_router.h"
#include "handlers/registry.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

struct RunFlags {
  std::string logs_root;
  bool simulate = false;
  std::string backend;
  bool auto_approve = false;
  std::string answers;
  std::string responses;
  std::vector<std::string> sets;
  std::string context_file;
  bool quiet = false;
  bool verbose = false;
  bool json_events = false;
  bool force = false;
  std::string index_dir;  ///< `--index DIR`: the retrieval index, overriding graph attribute index_dir
};

void add_common_options(CLI::App& app, RunFlags& f) {
  auto* simulate =
      app.add_flag("--simulate", f.simulate, "use the deterministic simulation backend for LLM stages (tools still run)");
  app.add_option("--backend", f.backend,
                 "LLM backend for nodes without llm_provider/llm_model: simulate, openai, anthropic, cli, cli:AGENT")
      ->excludes(simulate);
  auto* approve = app.add_flag("--auto-approve", f.auto_approve, "answer every human gate with its first option");
  app.add_option("--answers", f.answers, "replay human answers from a JSON file (array, or object keyed by node)")
      ->excludes(approve);
  app.add_option("--responses", f.responses, "script simulated LLM responses per node from a JSON file");
  app.add_option("--set", f.sets, "initial context value KEY=VALUE (VALUE parsed as JSON when valid)");
  app.add_option("--context", f.context_file, "initial context values from a JSON object file");
  auto* quiet = app.add_flag("--quiet,-q", f.quiet, "no progress display");
  app.add_flag("--verbose,-v", f.verbose, "more progress detail (checkpoints)")->excludes(quiet);
  app.add_flag("--json-events", f.json_events, "stream events as JSON lines on stdout");
  app.add_option("--index", f.index_dir,
                 "retrieval index directory for retrieval actions (overrides graph attribute index_dir, which is "
                 "relative to the graph file)");
}

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

/// Parses `--context` then `--set`; throws std::runtime_error with a message on bad input.
nlohmann::json seed_context(const RunFlags& f) {
  nlohmann::json seed = nlohmann::json::object();
  if (!f.context_file.empty()) {
    nlohmann::json j = nlohmann::json::parse(read_input_file_or_throw(f.context_file, kJsonFileRules), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error(f.context_file + ": expected a JSON object");
    seed.update(j);
  }
  for (const std::string& s : f.sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw std::runtime_error("--set expects KEY=VALUE, got '" + s + "'");
    std::string value = s.substr(eq + 1);
    nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
    seed[s.substr(0, eq)] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
  }
  return seed;
}

HandlerServices make_services(const RunFlags& f) {
  HandlerServices services;
  nlohmann::json responses = f.responses.empty() ? nlohmann::json::object() : load_responses_file(f.responses);
  if (f.simulate) {
    services.backend = std::make_shared<SimulationBackend>(responses);
  } else {
    BackendConfig config;
    config.default_provider = f.backend;
    config.responses = responses;
    services.backend = std::make_shared<RoutingBackend>(config);
  }
  if (f.auto_approve) {
    services.interviewer = std::make_shared<AutoApproveInterviewer>();
  } else if (!f.answers.empty()) {
    services.interviewer = std::shared_ptr<Interviewer>(load_answers_file(f.answers));
  } else {
    services.interviewer = std::make_shared<ConsoleInterviewer>(0, stderr);
  }
  return services;
}

std::shared_ptr<EventBus> make_observers(const RunFlags& f) {
  auto bus = std::make_shared<EventBus>();
  if (f.json_events) bus->add(std::make_shared<JsonStreamObserver>(stdout));
  if (!f.quiet) bus->add(std::make_shared<ProgressDisplay>(stderr, ::isatty(2) != 0, f.verbose));
  return bus;
}

int finish(const RunResult& r, const RunFlags& f, const UsageTally& usage) {
  std::fprintf(stderr, "run directory: %s\n", r.run_dir.c_str());
  if (!f.quiet) {
    std::fprintf(stderr, "tokens: %lld input, %lld output (%lld LLM calls)\n",
                 static_cast<long long>(usage.input_tokens()), static_cast<long long>(usage.output_tokens()),
                 static_cast<long long>(usage.calls()));
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

std::optional<LoadedPipeline> load_or_report(std::string_view command, const std::string& path, bool quiet) {
  std::optional<std::string> text = read_input_or_report(command, path, kDotFileRules);
  if (!text) return std::nullopt;
  LoadedPipeline loaded = load_pipeline_text(path, std::move(*text), builtin_handler_catalog());
  if (!loaded.ok()) {
    print_diagnostics(loaded.diagnostics, loaded.source.get());
    std::fprintf(stderr, "%s: not run: the pipeline has errors\n", path.c_str());
    return std::nullopt;
  }
  if (!quiet) print_diagnostics(loaded.diagnostics, loaded.source.get());
  return loaded;
}

int execute(const std::string& graph_path, const std::string& run_dir, const RunFlags& f, bool resume,
            RunDisk& disk) {
  // Waited for when this function returns. A failed load is retried (and reported) by the stage
  // that needs the table.
  std::future<void> token_table = std::async(std::launch::async, [] {
    try {
      token_counter_for(kDefaultTokenEncoding);
    } catch (const std::exception& e) {
      log().debug("token table {} not preloaded: {}", kDefaultTokenEncoding, e.what());
    }
  });
  const std::string_view command = resume ? "attractor resume" : "attractor run";
  auto loaded = load_or_report(command, graph_path, f.quiet);
  if (!loaded) return kExitUsage;
  const Graph& graph = *loaded->graph;

  if (!f.backend.empty() && !is_known_provider(canonical_provider(f.backend, process_env()))) {
    std::fprintf(stderr, "attractor: unknown --backend '%s' (expected simulate, openai, anthropic, cli or cli:AGENT)\n",
                 f.backend.c_str());
    return kExitUsage;
  }
  nlohmann::json seed;
  HandlerServices services;
  try {
    seed = resume ? nlohmann::json::object() : seed_context(f);
    services = make_services(f);
    services.retrieval = std::make_shared<GraphRetrievalProvider>(
        f.index_dir, fs::absolute(graph_path).parent_path().lexically_normal().string());
  } catch (const InputFileError& e) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(command.size()), command.data(), e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor: %s\n", e.what());
    return kExitUsage;
  }
  if (auto router = std::dynamic_pointer_cast<RoutingBackend>(services.backend)) {
    std::vector<std::string> problems = router->check(graph, builtin_handler_catalog());
    for (const std::string& p : problems) std::fprintf(stderr, "attractor: %s\n", p.c_str());
    if (!problems.empty()) {
      std::fprintf(stderr, "attractor: not run: LLM backend configuration is incomplete (use --simulate to run "
                           "without providers)\n");
      return kExitRuntime;
    }
  }
  HandlerRegistry registry = make_default_registry(services);

  EngineOptions options;
  options.run_dir = run_dir;
  options.disk = &disk;
  options.graph_path = fs::absolute(graph_path).lexically_normal().string();
  options.graph_sha256 = sha256_hex(read_text_file(graph_path));
  auto bus = make_observers(f);
  auto usage = std::make_shared<UsageTally>();
  bus->add(usage);
  options.observer = bus;
  InterruptWatcher watcher(options.cancel);
  std::fprintf(stderr, "run directory: %s\n", run_dir.c_str());
  try {
    Engine engine(graph, registry, options);
    RunResult result = resume ? engine.resume() : engine.run(seed);
    if (watcher.interrupted()) result.interrupted = true;
    return finish(result, f, *usage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor: runtime error: %s\n", e.what());
    return kExitRuntime;
  }
}

}  // namespace

int run_run_command(int argc, char** argv) { return run_run_command(argc, argv, posix_run_disk()); }

int run_run_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{"Run a pipeline. Exit 0 on success, 1 when the pipeline fails, 2 on usage, parse or validation "
               "errors, 3 on runtime errors, 130 when interrupted (the checkpoint stays valid)."};
  app.name("attractor run");
  std::string path;
  RunFlags f;
  app.add_option("GRAPH", path, "pipeline .dot file")->required();
  app.add_option("--logs-root", f.logs_root, "run directory (default ./checkpoints/<name>-<time>-<hex>/)");
  add_common_options(app, f);
  if (auto code = parse_cli(app, argc, argv)) return *code;

  std::string run_dir = f.logs_root;
  if (run_dir.empty()) {
    std::string name = fs::path(path).stem().string();
    if (auto loaded = load_pipeline(path, builtin_handler_catalog()); loaded.graph && !loaded.graph->name().empty()) name = loaded.graph->name();
    run_dir = (fs::path("checkpoints") / run_directory_name(name, system_clock().now_ms(), random_hex6())).string();
  }
  return execute(path, run_dir, f, false, disk);
}

int run_resume_command(int argc, char** argv) { return run_resume_command(argc, argv, posix_run_disk()); }

int run_resume_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{"Resume an interrupted run from its checkpoint; completed nodes are never re-run. Same exit codes "
               "as `attractor run`."};
  app.name("attractor resume");
  std::string run_dir;
  RunFlags f;
  app.add_option("RUN_DIR", run_dir, "run directory holding manifest.json and checkpoint.json")->required();
  app.add_flag("--force", f.force, "resume even though the graph file changed since the run started");
  app.add_option("--logs-root", f.logs_root, "ignored on resume (the run directory is RUN_DIR)");
  add_common_options(app, f);
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (!f.sets.empty() || !f.context_file.empty()) {
    std::fprintf(stderr,
                 "attractor resume: --set and --context seed a new run's context; a resumed run continues with "
                 "the context saved in its checkpoint\n");
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
  return execute(manifest.graph_path, run_dir, f, true, disk);
}

}  // namespace attractor
