#pragma once
/// \file
/// The node handler interface (spec §4.1) and what the engine hands a handler besides the node,
/// the context and the graph: its stage directory, a cancellation token, the clock, the event
/// sink, the artifact store and, for `parallel`, a way to run branches.
///
/// Handlers return an Outcome and never write `status.json` themselves: the engine writes it
/// after every attempt, so a `status.json` that appears in the stage directory (or, for a stage
/// that opened one, in its attempt folder) while the handler runs can only come from an external
/// tool or agent, and the engine honours it (Appendix C).
/// A handler that throws produces a FAIL outcome carrying the message (§4.12).
///
/// Run-directory writes go through the run's WriteBehind (`StageEnv::write_file`). A handler that
/// only writes that way and calls `StageEnv::flush_writes` before anything outside the process can
/// see the run directory says so with `queues_writes`; for every other handler the engine flushes
/// the queue before `execute`.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/check/handler_catalog.h"
#include "attractor/run/artifact_store.h"
#include "attractor/run/stage_files.h"
#include "attractor/base/clock.h"
#include "attractor/base/supervised_process.h"
#include "attractor/model/context.h"
#include "attractor/engine/events.h"
#include "attractor/engine/stage_conversation.h"
#include "attractor/model/graph.h"
#include "attractor/model/outcome.h"

namespace attractor {

class WriteBehind;

/// The result of running one parallel branch.
struct BranchResult {
  std::string id;  ///< the branch's first node
  std::size_t index = 0;
  Outcome outcome;         ///< outcome of the branch's last executed node
  std::string last_node;   ///< last executed node ("" when none ran)
  std::string stopped_at;  ///< node where the branch stopped without executing it
  std::vector<std::string> completed_nodes;
  nlohmann::json context_changes = nlohmann::json::object();  ///< diff of the branch context
  std::string last_response;
  bool cancelled = false;
  std::int64_t duration_ms = 0;
};

/// Runs a branch from `start_node` on `context` until it reaches `stop_at` (not executed), an exit
/// node (not executed), or a node with no eligible outgoing edge. Implemented by the engine.
class BranchRunner {
 public:
  virtual ~BranchRunner() = default;
  virtual BranchResult run_branch(const std::string& start_node, Context& context, const std::string& stop_at,
                                  const CancelToken& cancel) = 0;
};

/// Everything a handler may use besides node, context and graph.
struct StageEnv {
  std::string run_dir;                     ///< logs_root
  std::string stage_dir;                   ///< `{run_dir}/{node_id}`, created before `execute`
  CancelToken cancel;                      ///< fires on Ctrl-C, node timeout, or abandonment of a parallel branch
  std::optional<std::int64_t> timeout_ms;  ///< the node's `timeout`, if any
  Clock* clock = nullptr;
  EventObserver* events = nullptr;  ///< never null while the engine runs
  ArtifactStore* artifacts = nullptr;
  BranchRunner* branches = nullptr;
  std::int64_t attempt = 1;  ///< 1-based attempt number of this execution
  /// Attempts of this node's handler earlier in the run, all visits and retries counted (the
  /// checkpoint's `node_attempts`): the simulation backend scripts its n-th call with it.
  std::int64_t prior_attempts = 0;
  /// The fidelity mode this stage runs in (docs/fidelity.md §2): incoming edge `fidelity`, else
  /// node `fidelity`, else graph `default_fidelity`, else `compact`; an invalid value runs as
  /// `compact`, and the first `full` LLM stage after a resume that lost its sessions as
  /// `summary:high` (§6).
  std::string fidelity;
  /// The stage's thread (docs/fidelity.md §3: node `thread_id`, edge `thread_id`, graph
  /// `default_thread_id`, first class, previous node id).
  std::string thread_id;
  /// The node executed before this one in this traversal ("" for the first).
  std::string previous_node;
  /// For a handler that always prompts an LLM (`HandlerTraits::Llm::kAlways`): the preamble to
  /// put in front of its prompt, or the thread to continue under `full`. Empty otherwise.
  StageConversation conversation;

  /// With a run budget: why it would be spent once `in_flight` (StageUsage fields of this
  /// stage's LLM calls so far: `input_tokens`, `output_tokens`, `model`) is counted, else "".
  /// A handler that calls an LLM several times in one stage (the coding agent) asks before each
  /// call. Once it has answered non-empty, the engine stops the run after this stage as it does
  /// before an LLM stage (docs/decisions.md, "Run budgets"). Empty without a budget.
  std::function<std::string(const nlohmann::json& in_flight)> budget_check;
  /// Stops the run as interrupted once this stage returns, as Ctrl-C does: the stage is not
  /// recorded, the checkpoint's next node stays the one it was, PipelineInterrupted carries
  /// `reason`, and `attractor run` exits 130. A gate calls it when nobody can be asked
  /// (docs/decisions.md, "Gates a person can recover from"). Unset outside the engine.
  std::function<void(const std::string& reason)> interrupt_run;

  /// This attempt's own folder `{stage_dir}/attempt-K/`, made on the first call (flushing the
  /// writer first): where a program the stage starts writes (its ATTRACTOR_STAGE_DIR, its
  /// `status.json`) so that a program of an earlier attempt, even one of a killed run, can never
  /// write into a later attempt's files (docs/run-directory.md §2.5, §8). K counts the folders
  /// already there, so a resumed attempt never reuses an interrupted one's. Unset outside the engine.
  std::function<std::string()> attempt_directory;
  /// Writes `content` as this attempt's file `name` (prompt.md, response.md, the agent's
  /// transcript): into the stage folder, which holds the latest attempt's, and into the attempt
  /// folder. A stage's only attempt in a folder this run made keeps it in the stage folder alone;
  /// a second attempt moves it into `attempt-1/` (attractor/run/attempt_folders.h). Unset outside
  /// the engine: write `{stage_dir}/name`.
  std::function<void(const std::string& name, std::string content)> keep_attempt_file;
  /// Records a process group this attempt started in its attempt folder (`process-PGID.json`),
  /// so that a resume that finds the folder first makes sure the group is gone. Unset outside the engine.
  std::function<void(const ProcessGroupRecord&)> record_process;

  /// The run directory's writer; nullptr outside the engine (then writes are made inline).
  WriteBehind* writer = nullptr;
  /// The handler types of the run (the registry's catalog); nullptr outside the engine.
  const HandlerCatalog* handlers = nullptr;

  /// Emits an event stamped with the clock.
  void emit(const std::string& name, nlohmann::json fields) const;
  /// The stage's file writes, for what the handler hands them to (a backend, a tool hook).
  StageFiles files() const { return StageFiles(writer); }
  /// Writes `content` to `path` through the writer (inline on the real disk without one).
  void write_file(const std::string& path, std::string content) const;
  /// Waits until every queued run-directory write is done; call it before a subprocess, an LLM
  /// request or a question to a human. Throws the writer's failure.
  void flush_writes() const;
};

/// A node handler. Implementations must be safe to call from several branch threads at once.
/// What the engine needs to know about a handler type (timeouts, write queueing, fan-out) is in
/// its HandlerDescription, not here.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) = 0;
};

using HandlerPtr = std::shared_ptr<Handler>;

/// The handlers of a run, each under its description: resolves a node to its handler by explicit
/// `type`, then by the shape its description claims, then the default type (Attractor
/// specification, section 4.2: https://github.com/strongdm/attractor).
class HandlerRegistry {
 public:
  /// Registers (or replaces) `handler` for `description.type`.
  void register_handler(HandlerDescription description, HandlerPtr handler);
  /// Registers a custom type with no shapes, attributes or checks and default traits.
  void register_handler(const std::string& type, HandlerPtr handler);
  /// Makes the registered `type` the handler of nodes that name no known type or shape.
  void set_default_type(const std::string& type) { catalog_.set_default_type(type); }
  /// nullptr when nothing matches and no default is set.
  Handler* resolve(const NodeData& node) const;
  bool has(const std::string& type) const { return handlers_.count(type) > 0; }
  /// The descriptions of the registered types (lint, the engine and the reference read them).
  const HandlerCatalog& catalog() const { return catalog_; }
  /// The traits of the node's handler (explicit type, else shape, else default).
  const HandlerTraits& traits(const NodeData& node) const;

 private:
  HandlerCatalog catalog_;
  std::map<std::string, HandlerPtr, std::less<>> handlers_;
};

}  // namespace attractor
