#pragma once
/// \file
/// The LLM side of the codergen handler (§4.5). A backend turns a prompt into a response (or a
/// full Outcome). The request carries what real providers need: the thread key for session reuse,
/// the fidelity mode, a cancellation token and the node timeout; the result reports usage and the
/// session id. Backends signal failures by throwing `StageError` with a category: retryable
/// (rate limits, network, 5xx) or terminal (authentication, bad request, configuration).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/base/supervised_process.h"
#include "attractor/check/handler_catalog.h"
#include "attractor/model/chat_message.h"
#include "attractor/base/clock.h"
#include "attractor/model/context.h"
#include "attractor/model/graph.h"
#include "attractor/model/outcome.h"
#include "attractor/run/stage_files.h"
#include "handlers/services/sandbox.h"

namespace attractor {

/// The tokens of the model requests behind one result (docs/llm.md, "Token usage").
struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  /// The model requests that returned usage and are summed here: 1 for a backend that makes one
  /// request, the turns of the coding agent (including those before an error it reports).
  std::int64_t requests = 1;
};

struct CodergenRequest {
  const NodeData* node = nullptr;
  const Graph* graph = nullptr;
  const Context* context = nullptr;
  std::string prompt;
  std::string stage_dir;
  std::string run_dir;  ///< the run directory (StageEnv::run_dir), hidden from confined commands
  /// The run's sandbox choices, for backends that start commands (the agent's `shell`).
  SandboxOptions sandbox;
  /// The attempt's own folder, made on the first call (StageEnv::attempt_directory): where a
  /// backend that starts a program lets it write. Unset outside the engine: use stage_dir.
  std::function<std::string()> attempt_directory;
  /// Keeps a file of this attempt (StageEnv::keep_attempt_file); unset outside the engine.
  std::function<void(const std::string& name, std::string content)> keep_attempt_file;
  /// Records a started process group in the attempt folder (StageEnv::record_process); may be unset.
  std::function<void(const ProcessGroupRecord&)> record_process;
  std::string fidelity;       ///< resolved fidelity mode ("" = backend default)
  std::string thread_id;      ///< session reuse key for `full` fidelity
  std::string previous_node;  ///< the node executed before this stage ("" for the first)
  /// Earlier messages of this thread's session, oldest first (only under `full` fidelity; empty
  /// for a fresh session). The backend sends them before `prompt`.
  std::vector<ChatMessage> history;
  CancelToken cancel;
  std::optional<std::int64_t> timeout_ms;
  /// The clock provider backends wait on between transport retries (the engine's, so that a
  /// test's FakeClock records the waits); nullptr = the system clock.
  Clock* clock = nullptr;
  std::int64_t attempt = 1;     ///< retry attempt of this execution
  std::int64_t call_index = 0;  ///< attempts of this node before this one in the run (StageEnv::prior_attempts)
  /// The model to use instead of the node's (set by a fallback chain); "" = the node's.
  std::string model_override;
  /// Emits a run event from inside the backend (the agent's tool calls); empty = nowhere.
  std::function<void(const std::string& name, nlohmann::json fields)> emit;
  /// The run budget between LLM calls of one stage (StageEnv::budget_check); empty = no budget.
  std::function<std::string(const nlohmann::json& in_flight)> budget_check;
  /// How the backend writes files into `stage_dir` (StageEnv::files): never directly, so a failed
  /// write stops the run (exit 3). Default: inline on the real disk, for a backend run alone.
  StageFiles files;
};

struct CodergenResult {
  std::string response;            ///< the response text
  std::optional<Outcome> outcome;  ///< set when the backend decides the outcome itself
  Usage usage;
  std::string session_id;
  std::string model;
  std::string backend;  ///< the backend that answered ("openai", "anthropic", "cli", "simulation")
  /// The backend's agent reports status by writing `status.json` in the stage directory.
  bool status_from_file = false;
  /// `provider:model` of each backend in the fallback chain that failed before this one answered.
  std::vector<std::string> fallback_from;
  /// Under `full` fidelity, the messages this stage adds to its thread, prompt first; empty = the
  /// prompt and `response`. The coding agent keeps its tool calls and results here.
  std::vector<ChatMessage> exchange;
  /// Tool use to show in later stages' preambles (`stage_info.tools`), e.g. "read_file x2".
  std::vector<std::string> tools;
  /// How the commands the backend ran were confined (`stage_info.sandbox`: SandboxSpec::to_json
  /// and `denied`); null when it ran none of its own.
  nlohmann::json sandbox;
};

/// What a backend would use for one node, as `run --dry-run` shows it.
struct BackendChoice {
  std::string provider;  ///< canonical provider name ("simulate", "openai", "cli:codex"); "" = none chosen
  std::string model;     ///< the model its requests name; "" = the provider's own default (cli agents)
  /// How the requests may start programs on this machine, "llm_provider P" or "llm_fallbacks P"
  /// (a provider whose record says runs_commands); "" when they cannot.
  std::string runs_commands;
};

class CodergenBackend {
 public:
  virtual ~CodergenBackend() = default;
  virtual std::string name() const = 0;
  virtual CodergenResult run(const CodergenRequest& request) = 0;
  /// False when answering `request` involves nothing outside the process (no network, no
  /// subprocess, no reading of the stage directory), so queued run-directory writes need not be
  /// on disk first. True by default.
  virtual bool acts_outside_process(const CodergenRequest& request) const {
    (void)request;
    return true;
  }
  /// The provider and model `node`'s requests would go to; by default this backend's name and
  /// the node's `llm_model`.
  virtual BackendChoice plan(const NodeData& node, const Graph& graph) const {
    (void)graph;
    return {name(), node.llm_model(), ""};
  }
  /// What stops the LLM stages of `graph` (per `handlers`) from running on this backend, one
  /// message per problem naming the nodes; empty when nothing does (the default).
  virtual std::vector<std::string> check(const Graph& graph, const HandlerCatalog& handlers) const {
    (void)graph;
    (void)handlers;
    return {};
  }
  /// Why an LLM stage at `node` could not run on this backend (`check`'s message for its
  /// provider, without the node list); "" when it can (the default).
  virtual std::string stage_problem(const NodeData& node, const Graph& graph) const {
    (void)node;
    (void)graph;
    return "";
  }
};

}  // namespace attractor
