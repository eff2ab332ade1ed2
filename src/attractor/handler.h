#pragma once
/// \file
/// The node handler interface (spec §4.1) and what the engine hands a handler besides the node,
/// the context and the graph: its stage directory, a cancellation token, the clock, the event
/// sink, the artifact store and, for `parallel`, a way to run branches.
///
/// Handlers return an Outcome and never write `status.json` themselves: the engine writes it
/// after every attempt, so a `status.json` that appears in the stage directory while the handler
/// runs can only come from an external tool or agent, and the engine honours it (Appendix C).
/// A handler that throws produces a FAIL outcome carrying the message (§4.12).
///
/// Run-directory writes go through the run's WriteBehind (`StageEnv::write_file`). A handler that
/// only writes that way and calls `StageEnv::flush_writes` before anything outside the process can
/// see the run directory says so with `queues_writes`; for every other handler the engine flushes
/// the queue before `execute`.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/artifact_store.h"
#include "attractor/clock.h"
#include "attractor/context.h"
#include "attractor/events.h"
#include "attractor/graph.h"
#include "attractor/outcome.h"

namespace attractor {

class ThreadSessions;
class StageHistory;
class WriteBehind;

/// The result of running one parallel branch.
struct BranchResult {
  std::string id;                  ///< the branch's first node
  std::size_t index = 0;
  Outcome outcome;                 ///< outcome of the branch's last executed node
  std::string last_node;           ///< last executed node ("" when none ran)
  std::string stopped_at;          ///< node where the branch stopped without executing it
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
  std::string run_dir;    ///< logs_root
  std::string stage_dir;  ///< `{run_dir}/{node_id}`, created before `execute`
  CancelToken cancel;     ///< fires on Ctrl-C, node timeout, or abandonment of a parallel branch
  std::optional<std::int64_t> timeout_ms;  ///< the node's `timeout`, if any
  Clock* clock = nullptr;
  EventObserver* events = nullptr;  ///< never null while the engine runs
  ArtifactStore* artifacts = nullptr;
  BranchRunner* branches = nullptr;
  std::int64_t attempt = 1;         ///< 1-based attempt number of this execution
  /// Context fidelity for this stage (§5.4): incoming edge `fidelity`, else node `fidelity`, else
  /// graph `default_fidelity`, else "compact"; the first stage after resuming a run whose last
  /// stage used `full` gets "summary:high".
  std::string fidelity;
  /// The resolved thread key of this stage (seed 004: node `thread_id`, edge `thread_id`, graph
  /// default thread, subgraph class, previous node id).
  std::string thread_id;
  /// The node executed before this one in this traversal ("" for the first).
  std::string previous_node;
  /// The run's conversation sessions keyed by thread id; owned by the engine, nullptr outside it.
  ThreadSessions* sessions = nullptr;
  /// The run's finished stages (preambles summarize them); owned by the engine, nullptr outside it.
  const StageHistory* history = nullptr;

  /// The run directory's writer; nullptr outside the engine (then writes are made inline).
  WriteBehind* writer = nullptr;

  /// Emits an event stamped with the clock.
  void emit(const std::string& name, nlohmann::json fields) const;
  /// Writes `content` to `path` through the writer (inline without one).
  void write_file(const std::string& path, std::string content) const;
  /// Waits until every queued run-directory write is done; call it before a subprocess, an LLM
  /// request or a question to a human. Throws the writer's failure.
  void flush_writes() const;
};

/// A node handler. Implementations must be safe to call from several branch threads at once.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) = 0;
  /// True when the handler enforces the node `timeout` itself (wait.human uses it as the question
  /// timeout); otherwise the engine cancels the attempt when the timeout elapses.
  virtual bool handles_timeout() const { return false; }
  /// True when the handler writes the run directory only through `StageEnv::write_file` and
  /// calls `StageEnv::flush_writes` before any effect outside the process; the engine then lets
  /// it run while earlier writes are still queued. False (the default) makes the engine flush first.
  virtual bool queues_writes() const { return false; }
};

using HandlerPtr = std::shared_ptr<Handler>;

/// Maps type strings to handlers (§4.2): explicit `type`, then the shape mapping, then the default.
class HandlerRegistry {
 public:
  /// Registers (or replaces) the handler for `type` and makes the type known to lint.
  void register_handler(const std::string& type, HandlerPtr handler);
  void set_default(HandlerPtr handler) { default_ = std::move(handler); }
  /// nullptr when nothing matches and no default is set.
  Handler* resolve(const NodeData& node) const;
  bool has(const std::string& type) const { return handlers_.count(type) > 0; }

 private:
  std::map<std::string, HandlerPtr, std::less<>> handlers_;
  HandlerPtr default_;
};

}  // namespace attractor
