#pragma once
/// \file
/// Starting and resuming a run, shared by `attractor run`/`resume` and `attractor serve`: load and
/// check the pipeline, build its services (backend, interviewer, retrieval) and budget, take the
/// run lock, run the engine. Nothing here prints; problems come back as a LaunchFailure the
/// caller shows its own way (compiler-form lines on a terminal, JSON over HTTP).

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/base/input_file_reader.h"
#include "attractor/check/pipeline_loader.h"
#include "attractor/engine/engine.h"
#include "attractor/launch/command_use.h"
#include "attractor/launch/exit_code.h"
#include "attractor/launch/run_flags.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/run_lock.h"
#include "attractor/workspace/worktree_plan.h"
#include "handlers/registry.h"

namespace attractor {

/// What to run: a pipeline file into a run directory, fresh or from a checkpoint.
struct LaunchRequest {
  std::string graph_path;
  /// "" for a fresh run: prepare_run names it from the loaded graph
  /// (`checkpoints/<graph name>-<UTC time>-<6 hex>`, default_run_directory).
  std::string run_dir;
  RunFlags flags;
  std::optional<Checkpoint> resumed;  ///< set: continue this checkpoint instead of starting
  /// `resumed` was read while this process held the run lock, so it is still the run's latest
  /// checkpoint and the engine continues it without reading it again; false: the engine reads it
  /// again under the lock (a run another process may have resumed meanwhile).
  bool resumed_under_lock = false;
  /// The pipeline file's text when it was read already (resume_request reads it to compare its
  /// hash with the manifest's); prepare_run then does not read the file again.
  std::optional<std::string> graph_text;
  /// Where the pipeline file is read; nullptr = the real file system (system_input_files()).
  InputFileReader* files = nullptr;
  /// Replaces the interviewer the flags choose (auto-approve, answers file, console) when set.
  std::shared_ptr<Interviewer> interviewer;
  /// The tables a run needs, already loading (preload_run_tables); empty: prepare_run starts them.
  std::shared_future<void> preload;
  /// False: a pipeline with stages that run commands (command_use.h) is refused before its
  /// backends are checked (`attractor serve` without `--allow-commands`).
  bool allow_commands = true;
  /// Where the built-in agent, cli agents and tool commands work (`attractor serve` sets it from
  /// the request's `workdir`); "" = the process's current directory. For a `worktree` run,
  /// prepare_run sets it to the worktree's (the checkout holding it is where the worktree comes from).
  std::string workdir;
  /// The id of a new run; "" = drawn by the engine, or by prepare_run for a `worktree` run (whose
  /// branch is named after it before the engine starts).
  std::string run_id;
  /// A resumed run's worktree, from its manifest (docs/workspace.md); unset for `in-place`.
  std::optional<WorktreePlan> worktree;
};

/// Why a run did not start. `messages` are single lines without a command prefix; a graph with
/// errors also brings its diagnostics (and the source they point into).
struct LaunchFailure {
  int exit_code = kExitUsage;
  /// What a terminal prints before each message: "" means the command ("attractor run"), else
  /// e.g. "attractor" or the graph file.
  std::string prefix;
  std::vector<std::string> messages;
  std::vector<Diagnostic> diagnostics;
  SourceFilePtr source;
  /// Set when the run was refused for running commands (LaunchRequest::allow_commands).
  std::vector<CommandUse> commands;
};

/// A pipeline loaded, checked and equipped: what `execute_run` needs.
struct PreparedRun {
  LoadedPipeline pipeline;  ///< ok(); its diagnostics hold the warnings
  nlohmann::json seed;      ///< the initial context (the checkpoint's on resume)
  HandlerServices services;
  RunBudget budget;
  std::vector<std::string> warnings;  ///< e.g. answer keys that name no node
  /// The handler catalog and the default token table loading on another thread, started before
  /// the pipeline is checked (preload_run_tables). The loading goes on while the run directory is
  /// set up; whoever needs a table first waits for it, and dropping the last copy of this waits too.
  std::shared_future<void> tables;
  /// The worktree of a `worktree` run: planned (fresh) or recorded (resumed); unset for `in-place`.
  std::optional<WorktreePlan> worktree;

  const Graph& graph() const { return *pipeline.graph; }
};

/// Starts loading, on another thread, what every run needs and takes a while to build: the
/// built-in handler catalog (lint's) and the default token table (the first LLM stage's
/// preamble). A command calls it before parsing its arguments so both are ready when needed.
std::shared_future<void> preload_run_tables();

/// Loads `request.graph_path` (read once, parsed, transformed and checked once), seeds the
/// context, builds the services and budget and checks that every LLM stage has a usable backend
/// (exit 3 otherwise). A resumed request's checkpoint must still match the graph's nodes. An empty
/// `request.run_dir` is set to default_run_directory of the loaded graph.
std::variant<PreparedRun, LaunchFailure> prepare_run(LaunchRequest& request);

/// `checkpoints/<name>-<UTC yyyymmddTHHMMSS>-<6 hex>` where name is the graph's name, else the
/// stem of `graph_path`.
std::string default_run_directory(const Graph& graph, const std::string& graph_path);

/// Creates the run directory and takes its lock (run_lock.h). A lock another process holds is a
/// failure (exit 2); a disk that refuses the lock file is not (the run reports the disk itself),
/// so the result may be a null lock.
std::variant<std::unique_ptr<RunLock>, LaunchFailure> lock_run_directory(const std::string& run_dir);

/// The engine's options for `request`: run directory, graph path and hash, manifest options,
/// budget. The caller adds its observer and cancel token.
EngineOptions engine_options(const LaunchRequest& request, PreparedRun& prepared);

/// Runs or resumes (per `request.resumed`) with the engine; exceptions of the engine propagate.
RunResult execute_run(const LaunchRequest& request, PreparedRun& prepared, EngineOptions options);

/// A resume request for `run_dir`: first finishes a rewind or fork a killed process left half-made
/// (run_fork.h, finish_run_changes: the caller holds the run's lock), then reads manifest, checkpoint and graph file
/// once each (the text and checkpoint travel in the request to prepare_run and the engine), refuses a graph file that
/// is missing or changed since the start (unless `force`). prepare_run refuses one whose nodes no longer match the
/// checkpoint. `flags` are the options given again; the manifest's fill in the rest (`restored` receives one line per
/// restored option). `files` reads the graph file (nullptr = the real file system).
std::variant<LaunchRequest, LaunchFailure> resume_request(const std::string& run_dir, RunFlags flags,
                                                          const CLI::App* given, RunDisk& disk,
                                                          std::vector<std::string>* restored = nullptr,
                                                          InputFileReader* files = nullptr);

}  // namespace attractor
