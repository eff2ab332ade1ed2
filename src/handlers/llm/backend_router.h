#pragma once
/// \file
/// Choosing the LLM backend per node. Provider precedence: node `llm_provider` (after the
/// stylesheet), else the provider detected from the node's `llm_model` (claude-* → anthropic;
/// gpt-*, chatgpt-*, o1*, o3*, o4* → openai; gemini-* → gemini, which is refused), else the
/// `--backend` option, else the graph attribute `llm_provider`, else none: simulation is never a
/// silent default. `check` reports the LLM nodes without a provider (`attractor run` refuses to
/// start, exit 3) and `run` fails such a stage; `--simulate` (SimulationBackend for every stage),
/// `--backend simulate` or `llm_provider=simulate` choose the simulation explicitly.
///
/// Provider names: `simulate` (alias `simulation`), `openai`, `anthropic`, `agent` (the built-in
/// coding agent over the provider of the node's `llm_model`, else ATTRACTOR_AGENT_PROVIDER, else
/// anthropic when ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL is set, else openai; or explicitly
/// `agent:openai`, `agent:anthropic`), `cli` (the agent named
/// by ATTRACTOR_CLI_AGENT, default claude), `cli:<agent>`, and the aliases `claude-code`, `codex`,
/// `gemini-cli` for `cli:claude`, `cli:codex`, `cli:gemini`.
///
/// Environment: OPENAI_API_KEY, OPENAI_BASE_URL (default https://api.openai.com/v1; a base
/// without `/v1` gets it appended), OPENAI_MODEL (default model, gpt-4o-mini); ANTHROPIC_API_KEY,
/// ANTHROPIC_BASE_URL (default https://api.anthropic.com), ANTHROPIC_MODEL (claude-sonnet-4-5);
/// ATTRACTOR_CLI_AGENT; ATTRACTOR_CLI_COMMAND_<AGENT>. A key is required unless the provider's base
/// URL is set (local OpenAI-compatible servers need none); it is sent whenever present.
/// ATTRACTOR_LLM_MAX_RETRIES (a whole number, default 2) sets the transport retries of each
/// OpenAI/Anthropic call (handlers/llm/transport_retry.h); 0 turns them off.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/check/handler_catalog.h"
#include "attractor/model/graph.h"
#include "handlers/services/subprocess.h"
#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/http_transport.h"
#include "handlers/llm/provider_settings.h"
#include "handlers/llm/transport_retry.h"

namespace attractor {

/// Reads an environment variable; nullopt when unset or empty.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
/// The process environment.
EnvLookup process_env();

struct BackendConfig {
  std::string default_provider;  ///< `--backend`; "" = graph `llm_provider`, else none (refused)
  nlohmann::json responses = nlohmann::json::object();  ///< `--responses` script for simulate
  EnvLookup env;                 ///< empty = the process environment
  std::shared_ptr<HttpTransport> transport;  ///< nullptr = HttplibTransport
  /// Transport retries of the HTTP backends; ATTRACTOR_LLM_MAX_RETRIES overrides max_retries.
  TransportRetryPolicy transport_retry;
  UniformRandom transport_random;            ///< their jitter; empty = default_random()
  ProcessRunner* runner = nullptr;           ///< for cli agents; nullptr = POSIX runner
  /// Added to cli agents' environment (a PATH here is also where the preflight looks them up).
  std::vector<std::pair<std::string, std::string>> cli_env;
  /// Makes the backend of `agent:<vendor>` (the built-in coding agent lives in a layer above
  /// this one: handlers/agent/agent_backend.h); empty = `agent` is refused as unavailable.
  std::function<std::shared_ptr<CodergenBackend>(const std::string& vendor, const ProviderSettings& settings,
                                                 ProcessRunner* runner)>
      agent_factory;
};

/// "anthropic", "openai", "gemini" or "" (unknown: the default applies).
std::string provider_from_model(const std::string& model);

/// Lower-cased canonical name ("cli" becomes "cli:<agent>"); unknown names are returned lower-cased.
std::string canonical_provider(const std::string& name, const EnvLookup& env);

/// True for a canonical provider name the router can serve (simulate, openai, anthropic, cli:*).
bool is_known_provider(const std::string& canonical);

/// One step of a model fallback chain (`llm_fallbacks="anthropic:claude-sonnet-4-5, openai:gpt-4o"`).
struct FallbackStep {
  std::string provider;  ///< as written: openai, anthropic, simulate, cli:<agent>
  std::string model;     ///< may be empty only for cli agents
};

/// Parses an `llm_fallbacks` value: comma-separated `provider:model` pairs (`cli:<agent>[:model]`).
/// Throws std::invalid_argument naming the bad entry.
std::vector<FallbackStep> parse_llm_fallbacks(const std::string& text);

/// The fallback chain of `node`: its `llm_fallbacks`, else the graph's; empty when none.
std::vector<FallbackStep> llm_fallbacks(const NodeData& node, const Graph& graph);

/// True for the nodes whose handler in `handlers` prompts an LLM (codergen, and fan-in nodes with
/// a prompt, in the built-in catalog).
bool node_uses_llm(const NodeData& node, const HandlerCatalog& handlers);

/// A backend that forwards each request to the provider selected for its node; backends are
/// created on first use and shared.
class RoutingBackend : public CodergenBackend {
 public:
  explicit RoutingBackend(BackendConfig config);
  std::string name() const override { return "router"; }
  /// Sends the request to the node's provider; when that fails with a retryable error (after its
  /// own transport retries), tries the node's `llm_fallbacks` in order, skipping providers that
  /// are not configured. A terminal error (400, 401, 403, ...) is never passed on to a fallback.
  CodergenResult run(const CodergenRequest& request) override;
  /// False only for nodes routed to the simulation.
  bool acts_outside_process(const CodergenRequest& request) const override;

  /// The canonical provider for `node`; "" when nothing chooses one.
  std::string provider_for(const NodeData& node, const Graph& graph) const;
  /// The model `node`'s requests name: its `llm_model`, else the provider's default
  /// (OPENAI_MODEL / ANTHROPIC_MODEL, else gpt-4o-mini / claude-sonnet-4-5); "simulation" for the
  /// simulation and "" for a cli agent's own default.
  std::string model_for(const NodeData& node, const Graph& graph) const;
  /// What stops `graph` from running, one message per problem, naming the environment variable
  /// (or command) and the nodes: missing keys, unknown providers, agents not on PATH, an HTTP
  /// module that cannot be loaded (for openai, anthropic and agent stages without an injected
  /// transport; this loads the module).
  std::vector<std::string> check(const Graph& graph, const HandlerCatalog& handlers) const;

 private:
  std::optional<std::string> env(const std::string& name) const;
  /// OPENAI_MODEL / ANTHROPIC_MODEL, else the built-in default of `provider` (openai, anthropic).
  std::string default_model(const std::string& provider) const;
  std::shared_ptr<CodergenBackend> backend_for(const std::string& provider);
  /// Key, base URL, default model and retries of `vendor` (openai, anthropic) from the environment.
  ProviderSettings settings_for(const std::string& vendor) const;
  /// The vendor `agent` stands for at `node`.
  std::string agent_vendor(const NodeData& node) const;
  /// The answer of `provider`'s backend to `request`.
  CodergenResult run_on(const std::string& provider, const CodergenRequest& request);
  /// Problem with using `provider` at all ("" when fine).
  std::string provider_problem(const std::string& provider) const;

  BackendConfig config_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<CodergenBackend>> backends_;
};

}  // namespace attractor
