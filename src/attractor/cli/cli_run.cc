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
// - The summary at the end adds the run's token usage: `tokens: I input, O output (R requests in
//   S stages)`, every model request that returned usage in every attempt, a resumed run's
//   earlier ones too (docs/llm.md); a run without such requests has no such line.
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
// - The built-in handler catalog (lint's) and the default token table (o200k_base, which most
//   pipelines need for their first LLM stage's preamble) are built on a second thread from the
//   moment the command starts, while the arguments are parsed and the graph is read and parsed
//   (run_launch.h, preload_run_tables); a graph that picks another `token_encoding` loads that one
//   when it needs it.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/cli/progress_display.h"
#include "attractor/cli/run_plan.h"
#include "attractor/engine/usage_tally.h"
#include "attractor/launch/existing_run.h"
#include "attractor/launch/run_flags.h"
#include "attractor/launch/write_failure.h"
#include "attractor/launch/run_launch.h"
#include "attractor/launch/run_workspace.h"
#include "attractor/base/clock.h"
#include "attractor/engine/engine.h"
#include "attractor/model/value.h"
#include "attractor/base/input_file_reader.h"
#include "attractor/run/posix_run_disk.h"
#include "handlers/llm/backend_router.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {

namespace {

const CancelToken* g_cancel_token = nullptr;
volatile sig_atomic_t g_interrupted = 0;

extern "C" void on_sigint(int) {
  g_interrupted = 1;
  if (g_cancel_token) g_cancel_token->cancel();
}

/// Bridges SIGINT/SIGTERM to the engine's cancel token (set directly from the handler).
class InterruptWatcher {
 public:
  explicit InterruptWatcher(const CancelToken& token) : token_(token) {
    g_cancel_token = &token_;
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
    g_cancel_token = nullptr;
  }
  bool interrupted() const { return g_interrupted != 0; }

 private:
  CancelToken token_;
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::shared_ptr<EventBus> make_observers(const RunFlags& f) {
  auto bus = std::make_shared<EventBus>();
  if (f.json_events) bus->add(std::make_shared<JsonStreamObserver>(stdout));
  if (!f.quiet) bus->add(std::make_shared<ProgressDisplay>(stderr, ::isatty(2) != 0, f.verbose));
  return bus;
}

/// The StageWaiting interval `ATTRACTOR_WAITING_INTERVAL` asks for (a duration, "0s" = none), or
/// the engine's default; a value that is not a duration is warned about and ignored.
std::int64_t waiting_interval() {
  const char* text = std::getenv("ATTRACTOR_WAITING_INTERVAL");
  if (!text || !*text) return kDefaultWaitingEveryMs;
  if (std::optional<std::int64_t> ms = parse_duration_ms(text)) return *ms;
  std::fprintf(stderr,
               "attractor: warning: ATTRACTOR_WAITING_INTERVAL='%s' is not a duration such as 15s; using the default\n",
               text);
  return kDefaultWaitingEveryMs;
}

/// `run --dry-run`: the plan on stdout, exit 0. `workspace` is the planned worktree's record (null:
/// in-place in `workdir`).
int print_plan(const Graph& graph, const HandlerServices& services, const RunBudget& budget, bool json,
               const nlohmann::json& workspace, const std::string& workdir) {
  const SimulationBackend simulation;
  const CodergenBackend* backend = services.backend ? services.backend.get() : &simulation;
  std::vector<PlannedStage> plan = plan_run(graph, builtin_handler_catalog(), *backend);
  for (const CommandUse& use : command_uses(graph, services)) {
    auto stage = std::find_if(plan.begin(), plan.end(), [&use](const PlannedStage& s) { return s.id == use.node; });
    if (stage != plan.end()) stage->commands.push_back(use);
  }
  std::string text;
  if (json) {
    nlohmann::json j = plan_json(graph, plan, budget);
    j["workspace"] = workspace.is_object() ? workspace : nlohmann::json{{"mode", "in-place"}, {"workdir", workdir}};
    text = j.dump(2) + "\n";
  } else {
    text = format_plan(graph, plan, budget) + "workspace: " + describe_workspace(workspace, workdir) + "\n";
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return plan_refused(plan) ? kExitRuntime : kExitSuccess;
}

/// `tokens: I input, O output (R requests in S stages)` (usage_text), or "" for a run whose
/// model requests returned no usage.
std::string usage_summary(const nlohmann::json& usage) {
  if (usage_requests(usage) == 0) return "";
  std::string cost = usage.contains("cost_usd") && usage["cost_usd"].is_number()
                         ? fmt::format(", cost ${:.4f}", usage["cost_usd"].get<double>())
                         : "";
  return "tokens: " + usage_text(usage) + cost + "\n";
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
    // A stage stops the run itself only when it needs a person nobody could ask (a human gate).
    const bool by_stage = r.outcome.failure_reason != "interrupted";
    if (by_stage) std::fprintf(stderr, "stopped: %s\n", r.outcome.failure_reason.c_str());
    std::fprintf(stderr, "interrupted; the checkpoint is intact: attractor resume %s%s\n", r.run_dir.c_str(),
                 by_stage ? " (on a terminal, or with --auto-approve or --answers FILE, to answer the gate)" : "");
    return kExitInterrupted;
  }
  if (is_success(r.outcome.status)) {
    if (!f.quiet) std::fprintf(stderr, "result: %s\n", status_name(r.outcome.status));
    return kExitSuccess;
  }
  std::fprintf(stderr, "result: fail: %s\n", r.outcome.failure_reason.c_str());
  return kExitFail;
}

/// Prints why a run did not start (diagnostics in compiler form, then one line per message).
int report(std::string_view command, const LaunchFailure& failure) {
  if (!failure.diagnostics.empty()) print_diagnostics(failure.diagnostics, failure.source.get());
  const std::string prefix = failure.prefix.empty() ? std::string(command) : failure.prefix;
  for (const std::string& m : failure.messages) std::fprintf(stderr, "%s: %s\n", prefix.c_str(), m.c_str());
  return failure.exit_code;
}

/// The run lock of `run_dir` when the run is written to the real file system (a test's disk
/// has no other process to keep out).
std::variant<std::unique_ptr<RunLock>, LaunchFailure> lock_for(const std::string& run_dir, RunDisk& disk) {
  if (&disk != &posix_run_disk()) return std::unique_ptr<RunLock>();
  return lock_run_directory(run_dir);
}

/// A refusal of the run with `message`.
LaunchFailure refusal(std::string message, int exit_code = kExitUsage) {
  LaunchFailure refused;
  refused.exit_code = exit_code;
  refused.messages.push_back(std::move(message));
  return refused;
}

/// For a new run: the refusal when its directory holds another run, after moving that run aside
/// when `--move-aside` asks (existing_run.h); nullopt when the run may start.
std::optional<LaunchFailure> claim_run_directory(const LaunchRequest& request, RunDisk& disk) {
  const std::string& dir = request.run_dir;
  std::optional<std::string> problem = existing_run_problem(disk, dir, system_clock().now_ms());
  if (!problem) return std::nullopt;
  if (!request.flags.move_aside) return refusal(std::move(*problem));
  if (run_lock_holder(dir)) {
    return refusal(dir + " holds a run that is running now; --move-aside moves only a run no process holds");
  }
  const std::string aside = aside_path(disk, dir);
  try {
    disk.rename(dir, aside);
  } catch (const std::exception& e) {
    return refusal(e.what(), kExitRuntime);
  }
  std::fprintf(stderr, "attractor: moved the run %s held to %s\n", dir.c_str(), aside.c_str());
  return std::nullopt;
}

/// Prepares and runs `request`; `held` is the run lock when the caller took it already (resume).
int execute(LaunchRequest request, RunDisk& disk, std::optional<std::unique_ptr<RunLock>> held = std::nullopt) {
  const RunFlags& f = request.flags;
  const std::string_view command = request.resumed ? "attractor resume" : "attractor run";
  auto prepared_or = prepare_run(request);
  if (auto* failure = std::get_if<LaunchFailure>(&prepared_or)) return report(command, *failure);
  PreparedRun& prepared = std::get<PreparedRun>(prepared_or);
  if (!f.quiet) print_diagnostics(prepared.pipeline.diagnostics, prepared.pipeline.source.get());
  for (const std::string& w : prepared.warnings) std::fprintf(stderr, "attractor: warning: %s\n", w.c_str());
  if (f.dry_run)
    return print_plan(prepared.graph(), prepared.services, prepared.budget.with_graph_defaults(prepared.graph()),
                      f.plan_json, planned_workspace(prepared), requested_workdir(request));

  if (!held && !request.resumed) {
    if (auto refused = claim_run_directory(request, disk)) return report(command, *refused);
  }
  EngineOptions options = engine_options(request, prepared);
  options.disk = &disk;
  options.observer = make_observers(f);
  options.waiting_every_ms = waiting_interval();
  std::unique_ptr<RunLock> lock;
  if (held) {
    lock = std::move(*held);
  } else {
    auto lock_or = lock_for(request.run_dir, disk);
    if (auto* failure = std::get_if<LaunchFailure>(&lock_or)) return report(command, *failure);
    lock = std::move(std::get<std::unique_ptr<RunLock>>(lock_or));
    // Another run may have started there between the check and the lock.
    if (!request.resumed) {
      if (auto problem = existing_run_problem(disk, request.run_dir, system_clock().now_ms())) {
        return report(command, refusal(std::move(*problem)));
      }
    }
  }
  InterruptWatcher watcher(options.cancel);
  if (!f.quiet) {
    std::fprintf(stderr, "run directory: %s\n", request.run_dir.c_str());
    std::fprintf(stderr, "workspace: %s\n",
                 describe_workspace(planned_workspace(prepared), requested_workdir(request)).c_str());
  }
  try {
    RunResult result = execute_run(request, prepared, std::move(options));
    // A signal that came after the run had finished does not change its result: the exit code
    // says what the checkpoint says.
    if (watcher.interrupted() && result.checkpoint.state == "running") result.interrupted = true;
    return finish(result, f);
  } catch (const RunWriteError& e) {
    std::fputs(record_write_failure(disk, request.run_dir, e.what(), system_clock().now_ms()).c_str(), stderr);
    return kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor: runtime error: %s\n", e.what());
    return kExitRuntime;
  }
}

}  // namespace

int run_run_command(int argc, char** argv) { return run_run_command(argc, argv, posix_run_disk()); }

int run_run_command(int argc, char** argv, RunDisk& disk) {
  return run_run_command(argc, argv, disk, system_input_files());
}

int run_run_command(int argc, char** argv, RunDisk& disk, InputFileReader& files) {
  std::shared_future<void> preload = preload_run_tables();
  CLI::App app{
      "Run a pipeline. Exit 0 on success, 1 when the pipeline fails, 2 on usage, parse or validation "
      "errors, 3 on runtime errors (including LLM stages without a backend), 130 when interrupted or stopped at "
      "a human gate nobody could ask (the checkpoint stays valid; resume asks again)."};
  app.name("attractor run");
  std::string path;
  RunFlags f;
  app.add_option("GRAPH", path, "pipeline .dot file")->required();
  app.add_option("--logs-root", f.logs_root, "run directory (default ./checkpoints/<name>-<time>-<hex>/)");
  add_common_options(app, f);
  add_seed_options(app, f);
  auto* dry_run = app.add_flag(
      "--dry-run", f.dry_run,
      "validate and print the plan (each node's handler, backend, model, fidelity, thread, and "
      "the budget) without calling anything or creating a run directory");
  app.add_flag("--json", f.plan_json, "with --dry-run: the plan as JSON on stdout")->needs(dry_run);
  app.add_flag("--move-aside", f.move_aside,
               "when the run directory holds a run, move that run to DIR.old-N (never deleted) and start afresh; "
               "without it such a directory is refused (exit 2)");
  app.add_option("--workspace", f.workspace,
                 "where the stages change files: worktree (a git worktree on branch attractor/<run-id>, a commit per "
                 "stage; docs/workspace.md) or in-place (the working directory); overrides graph attribute workspace")
      ->check(CLI::IsMember({"worktree", "in-place"}));
  if (auto code = parse_cli(app, argc, argv)) return *code;

  LaunchRequest request;
  request.graph_path = path;
  request.run_dir = f.logs_root;  // "": prepare_run names it from the loaded graph
  request.flags = f;
  request.preload = preload;
  request.files = &files;
  return execute(std::move(request), disk);
}

int run_resume_command(int argc, char** argv) { return run_resume_command(argc, argv, posix_run_disk()); }

int run_resume_command(int argc, char** argv, RunDisk& disk) {
  return run_resume_command(argc, argv, disk, system_input_files());
}

int run_resume_command(int argc, char** argv, RunDisk& disk, InputFileReader& files) {
  std::shared_future<void> preload = preload_run_tables();
  CLI::App app{
      "Resume an interrupted run from its checkpoint; completed nodes are never re-run. The backend, "
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
  // The checkpoint is read once, under the lock, and handed to the engine: no other process can
  // resume the run between the read and the engine's start.
  auto lock_or = lock_for(run_dir, disk);
  if (auto* failure = std::get_if<LaunchFailure>(&lock_or)) return report("attractor resume", *failure);
  std::vector<std::string> restored;
  auto request = resume_request(run_dir, f, &app, disk, &restored, &files);
  if (auto* failure = std::get_if<LaunchFailure>(&request)) return report("attractor resume", *failure);
  if (!f.quiet && !restored.empty()) {
    std::string list;
    for (const std::string& r : restored) list += (list.empty() ? "" : ", ") + r;
    std::fprintf(stderr, "resuming as started: %s (from manifest.json)\n", list.c_str());
  }
  LaunchRequest& resumed = std::get<LaunchRequest>(request);
  resumed.preload = preload;
  resumed.resumed_under_lock = true;
  return execute(std::move(resumed), disk, std::move(std::get<std::unique_ptr<RunLock>>(lock_or)));
}

}  // namespace attractor
