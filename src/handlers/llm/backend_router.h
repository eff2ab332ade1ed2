#pragma once
/// \file
/// Choosing the LLM backend per node among the providers of a ProviderTable (provider_table.h;
/// `attractor help providers` lists the built-in ones with their variables and capabilities).
/// Provider precedence: node `llm_provider` (after the stylesheet), else the provider the node's
/// `llm_model` implies (the records' model prefixes: claude-* → anthropic; gpt-*, chatgpt-*, o1*,
/// o3*, o4* → openai; gemini-* → gemini, which is refused), else the `--backend` option, else the
/// graph attribute `llm_provider`, else none: simulation is never a silent default. A default
/// naming `agent` wins over the provider a model implies (the agent drives that provider).
/// `check` reports the LLM nodes without a provider (`attractor run` refuses to start, exit 3)
/// and `run` fails such a stage; `--simulate` (SimulationBackend for every stage), `--backend
/// simulate` or `llm_provider=simulate` choose the simulation explicitly.
///
/// Environment: each record's key, base-URL and model variables (OPENAI_API_KEY, OPENAI_BASE_URL,
/// OPENAI_MODEL, ANTHROPIC_*); a key is required unless the provider's base URL is set (local
/// OpenAI-compatible servers need none) and is sent whenever present. ATTRACTOR_CLI_AGENT and
/// ATTRACTOR_CLI_COMMAND_<AGENT> configure cli agents (cli_backend.h), ATTRACTOR_AGENT_PROVIDER
/// the agent (agent_provider.h). ATTRACTOR_LLM_MAX_RETRIES (a whole number, default 2) sets the
/// transport retries of each HTTP call (handlers/llm/transport_retry.h); 0 turns them off.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "attractor/check/handler_catalog.h"
#include "attractor/model/graph.h"
#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/provider.h"
#include "handlers/llm/provider_table.h"

namespace attractor {

/// The provider an `llm_model` implies among the built-in providers: "anthropic", "openai",
/// "gemini" or "" (unknown: the default applies).
std::string provider_from_model(const std::string& model);

/// Lower-cased canonical name among the built-in providers ("cli" becomes "cli:<agent>"); unknown
/// names are returned lower-cased.
std::string canonical_provider(const std::string& name, const EnvLookup& env);

/// True for a canonical provider name the router can serve (simulate, openai, anthropic, agent, cli:*).
bool is_known_provider(const std::string& canonical);

/// One step of a model fallback chain (`llm_fallbacks="anthropic:claude-sonnet-4-5, openai:gpt-4o"`).
struct FallbackStep {
  std::string provider;  ///< as written: openai, anthropic, simulate, cli:<agent>
  std::string model;     ///< may be empty only for cli agents
};

/// Parses an `llm_fallbacks` value: comma-separated `provider:model` pairs (`cli:<agent>[:model]`)
/// of the providers of `table` that allow fallbacks. Throws std::invalid_argument naming the bad entry.
std::vector<FallbackStep> parse_llm_fallbacks(const std::string& text, const ProviderTable& table);
/// The same with the built-in providers.
std::vector<FallbackStep> parse_llm_fallbacks(const std::string& text);

/// The fallback chain of `node`: its `llm_fallbacks`, else the graph's; empty when none.
std::vector<FallbackStep> llm_fallbacks(const NodeData& node, const Graph& graph, const ProviderTable& table);
/// The same with the built-in providers.
std::vector<FallbackStep> llm_fallbacks(const NodeData& node, const Graph& graph);

/// True for the nodes whose handler in `handlers` prompts an LLM (codergen, and fan-in nodes with
/// a prompt, in the built-in catalog).
bool node_uses_llm(const NodeData& node, const HandlerCatalog& handlers);

/// A backend that forwards each request to the provider selected for its node among the records
/// of BackendConfig::providers; backends are created on first use and shared.
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

  /// provider_for and model_for, and whether the provider or a fallback runs commands.
  BackendChoice plan(const NodeData& node, const Graph& graph) const override;
  std::string stage_problem(const NodeData& node, const Graph& graph) const override;
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
  std::vector<std::string> check(const Graph& graph, const HandlerCatalog& handlers) const override;
  /// The providers it routes to.
  const ProviderTable& providers() const { return *config_.providers; }

 private:
  std::shared_ptr<CodergenBackend> backend_for(const std::string& provider);
  /// The answer of `provider`'s backend to `request`.
  CodergenResult run_on(const std::string& provider, const CodergenRequest& request);
  /// Problem with using `provider` at all ("" when fine).
  std::string provider_problem(const std::string& provider) const;

  BackendConfig config_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<CodergenBackend>> backends_;
};

}  // namespace attractor
