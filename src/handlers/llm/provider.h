#pragma once
/// \file
/// One LLM provider as the rest of attractor sees it: a ProviderRecord holds its name and other
/// spellings, the model names that select it, its environment variables, what it can do and how
/// to make its backend. Each provider defines its record next to its backend (`openai_provider()`
/// in openai_backend.cc, ...); provider_table.cc lists them, one line each, and the router, lint
/// (the `llm_provider` rule), `run --dry-run`, `attractor help providers` and docs/llm.md
/// all read that table.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/check/handler_catalog.h"
#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/http_transport.h"
#include "handlers/llm/provider_settings.h"
#include "handlers/llm/transport_retry.h"
#include "handlers/services/subprocess.h"

namespace attractor {

class ProviderTable;

/// Reads an environment variable; nullopt when unset or empty.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
/// The process environment.
EnvLookup process_env();

/// What the router makes backends with.
struct BackendConfig {
  std::string default_provider;                         ///< `--backend`; "" = graph `llm_provider`, else none (refused)
  nlohmann::json responses = nlohmann::json::object();  ///< `--responses` script for simulate
  EnvLookup env;                                        ///< empty = the process environment
  std::shared_ptr<HttpTransport> transport;             ///< nullptr = HttplibTransport
  /// Transport retries of the HTTP backends; ATTRACTOR_LLM_MAX_RETRIES overrides max_retries.
  TransportRetryPolicy transport_retry;
  UniformRandom transport_random;   ///< their jitter; empty = default_random()
  ProcessRunner* runner = nullptr;  ///< for cli agents; nullptr = POSIX runner
  /// Added to cli agents' environment (a PATH here is also where the preflight looks them up).
  std::vector<std::pair<std::string, std::string>> cli_env;
  /// Where cli agents run; "" = the process's current directory.
  std::string workdir;
  /// Makes the backend of `agent:<vendor>` (the built-in coding agent lives in a layer above
  /// this one: handlers/agent/agent_backend.h); empty = `agent` is refused as unavailable.
  std::function<std::shared_ptr<CodergenBackend>(const std::string& vendor, const ProviderSettings& settings,
                                                 ProcessRunner* runner)>
      agent_factory;
  /// The providers to route to; nullptr = builtin_providers() (provider_table.h).
  std::shared_ptr<const ProviderTable> providers;
};

/// What a provider offers, as `attractor help providers` lists it.
struct ProviderCapabilities {
  /// Answers inside the process (no network, no subprocess, no reading of the stage directory).
  bool in_process = false;
  /// Takes tool calls, so the built-in coding agent can drive it (`agent:<name>`).
  bool tools = false;
  /// Delivers a reply while it is being written (no provider does yet).
  bool streaming = false;
  /// May be named in `llm_fallbacks`.
  bool fallback = false;
  /// Starts programs on this machine (a CLI agent, the built-in agent's shell), so a server runs
  /// its stages only with `--allow-commands` (docs/server.md).
  bool runs_commands = false;
};

/// How a provider is a family of providers written `name:VARIANT`.
enum class ProviderVariants {
  kNone,          ///< a single provider
  kAnyName,       ///< any non-empty name (`cli:<agent>`: the agent's command is configurable)
  kToolProvider,  ///< the name of a provider with `tools` (`agent:openai`)
};

struct ProviderRecord;

/// What a record's functions get: the table, the router's configuration (its `env` is set), the
/// record and, for a family, the variant after the colon.
struct ProviderUse {
  const ProviderTable& table;
  const BackendConfig& config;
  const ProviderRecord& record;
  std::string variant;
};

/// One provider.
struct ProviderRecord {
  std::string name;     ///< the `llm_provider` / `--backend` value, lower case
  std::string summary;  ///< one sentence for `attractor help providers`
  /// Other spellings and the canonical name each stands for ("simulation" → "simulate",
  /// "codex" → "cli:codex").
  std::vector<std::pair<std::string, std::string>> aliases;
  /// Lower-case `llm_model` prefixes that select this provider when a node names none ("gpt-").
  std::vector<std::string> model_prefixes;
  std::string key_variable;       ///< e.g. OPENAI_API_KEY; "" = takes no key
  std::string base_url_variable;  ///< e.g. OPENAI_BASE_URL; "" = none
  /// The base URL when base_url_variable is unset; "" = the backend's own default.
  std::string default_base_url;
  std::string model_variable;  ///< the default model's variable, e.g. OPENAI_MODEL; "" = none
  std::string default_model;   ///< when neither the node nor model_variable names one
  /// The model every request reports whatever the node names ("simulation"); "" = the node's.
  std::string fixed_model;
  ProviderCapabilities capabilities;
  ProviderVariants variants = ProviderVariants::kNone;
  std::string variant_word;  ///< what help shows after the colon ("agent" for cli:<agent>)
  /// A family's variant when only its bare name is written; "" = left to the node (`agent`)
  /// or none. `node` is null when no node is known yet. Unset = "".
  std::function<std::string(const ProviderTable& table, const EnvLookup& env, const NodeData* node)> default_variant;
  /// A default of this provider (`--backend`, graph `llm_provider`) wins over the provider an
  /// `llm_model` implies (the agent drives that model's provider).
  bool wraps_model_provider = false;
  /// What stops it from running, "" when nothing (missing key, agent not on PATH, ...). Unset = "".
  std::function<std::string(const ProviderUse& use)> check;
  /// Its backend; unset for a provider that is only recognised in order to be refused. Returns
  /// nullptr when it cannot be made (check says why).
  std::function<std::shared_ptr<CodergenBackend>(const ProviderUse& use)> make;
  /// Why a provider without `make` is refused, and what to use instead.
  std::string refusal;
  /// The node attributes its backend reads (`agent.max_turns`, `workdir`): LLM stages list them,
  /// so lint checks them and the reference prints them.
  std::vector<AttributeSpec> attributes;
};

/// Key, base URL, default model, transport and retries of `record` from `config` and its environment.
ProviderSettings provider_settings(const ProviderRecord& record, const BackendConfig& config);

/// The preflight of an HTTP provider: its key (or base URL) is set, ATTRACTOR_LLM_MAX_RETRIES
/// is valid and, without an injected transport, the HTTP module loads.
std::string http_provider_problem(const ProviderRecord& record, const BackendConfig& config);

/// The model `record` uses when the node names none: its model_variable, else default_model.
std::string provider_default_model(const ProviderRecord& record, const EnvLookup& env);

}  // namespace attractor
