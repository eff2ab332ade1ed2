#include "handlers/llm/backend_router.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "attractor/base/log.h"
#include "handlers/llm/anthropic_backend.h"
#include "handlers/llm/cli_backend.h"
#include "handlers/llm/openai_backend.h"
#include "handlers/llm/simulation_backend.h"
#include "http/http_module.h"

namespace attractor {

namespace {

/// ATTRACTOR_LLM_MAX_RETRIES: a whole number from 0 to 100; nullopt for anything else.
std::optional<int> parse_max_retries(const std::string& text) {
  if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  int value = std::stoi(text);
  if (value > 100) return std::nullopt;
  return value;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

bool on_path(const std::string& executable, const std::string& path) {
  if (executable.find('/') != std::string::npos) return ::access(executable.c_str(), X_OK) == 0;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + executable;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
}

std::string provider_from_model(const std::string& model) {
  std::string m = lower(model);
  if (auto slash = m.find('/'); slash != std::string::npos) {
    std::string vendor = m.substr(0, slash);
    if (vendor == "anthropic" || vendor == "openai") return vendor;
    m = m.substr(slash + 1);
  }
  if (starts_with(m, "claude")) return "anthropic";
  if (starts_with(m, "gpt-") || starts_with(m, "chatgpt-") || starts_with(m, "o1") || starts_with(m, "o3") ||
      starts_with(m, "o4")) {
    return "openai";
  }
  if (starts_with(m, "gemini")) return "gemini";
  return "";
}

std::string canonical_provider(const std::string& name, const EnvLookup& env) {
  std::string p = lower(name);
  if (p == "simulation") return "simulate";
  if (p == "claude-code" || p == "claude_code") return "cli:claude";
  if (p == "codex") return "cli:codex";
  if (p == "gemini-cli") return "cli:gemini";
  if (p == "cli") {
    auto agent = env ? env("ATTRACTOR_CLI_AGENT") : std::nullopt;
    return "cli:" + (agent ? lower(*agent) : std::string("claude"));
  }
  return p;
}

bool is_known_provider(const std::string& canonical) {
  return canonical == "simulate" || canonical == "openai" || canonical == "anthropic" || canonical == "agent" ||
         canonical == "agent:openai" || canonical == "agent:anthropic" ||
         (starts_with(canonical, "cli:") && canonical.size() > 4);
}

bool node_uses_llm(const NodeData& node, const HandlerCatalog& handlers) {
  return uses_llm(handlers.traits(node), node);
}

RoutingBackend::RoutingBackend(BackendConfig config) : config_(std::move(config)) {
  if (!config_.env) config_.env = process_env();
}

std::optional<std::string> RoutingBackend::env(const std::string& name) const { return config_.env(name); }

std::string RoutingBackend::agent_vendor(const NodeData& node) const {
  if (std::string p = provider_from_model(node.llm_model()); p == "openai" || p == "anthropic") return p;
  if (auto chosen = env("ATTRACTOR_AGENT_PROVIDER")) return lower(*chosen);
  return env("ANTHROPIC_API_KEY") || env("ANTHROPIC_BASE_URL") ? "anthropic" : "openai";
}

std::string RoutingBackend::provider_for(const NodeData& node, const Graph& graph) const {
  std::string p;
  if (!node.llm_provider().empty()) {
    p = canonical_provider(node.llm_provider(), config_.env);
  } else {
    // --backend agent (or graph llm_provider=agent) wraps the agent around the vendor an
    // llm_model names, so that model detection does not bypass it.
    std::string fallback = !config_.default_provider.empty() ? config_.default_provider : graph.data().get("llm_provider");
    fallback = canonical_provider(fallback, config_.env);
    std::string from_model = provider_from_model(node.llm_model());
    p = from_model.empty() || fallback == "agent" || starts_with(fallback, "agent:") ? fallback : from_model;
  }
  return p == "agent" ? "agent:" + agent_vendor(node) : p;
}

std::string RoutingBackend::default_model(const std::string& provider) const {
  return env(provider == "openai" ? "OPENAI_MODEL" : "ANTHROPIC_MODEL")
      .value_or(provider == "openai" ? "gpt-4o-mini" : "claude-sonnet-4-5");
}

std::string RoutingBackend::model_for(const NodeData& node, const Graph& graph) const {
  std::string provider = provider_for(node, graph);
  if (provider == "simulate") return "simulation";
  if (!node.llm_model().empty()) return node.llm_model();
  if (provider == "openai" || provider == "anthropic") return default_model(provider);
  if (starts_with(provider, "agent:")) return default_model(provider.substr(6));
  return "";
}

std::string RoutingBackend::provider_problem(const std::string& provider) const {
  if (provider.empty()) {
    return "no LLM backend chosen: pass --backend openai|anthropic|cli (or set llm_provider on the graph or the "
           "nodes, or an llm_model such as gpt-4o or claude-sonnet-4-5), or pass --simulate to run these stages "
           "with the simulation backend";
  }
  if (provider == "simulate") return "";
  if (starts_with(provider, "agent:")) {
    if (!config_.agent_factory) return "the built-in coding agent is not available here";
    const std::string vendor = provider.substr(6);
    if (vendor != "openai" && vendor != "anthropic") {
      return "the coding agent speaks openai or anthropic, not '" + vendor + "' (ATTRACTOR_AGENT_PROVIDER)";
    }
    return provider_problem(vendor);
  }
  if (provider == "openai" || provider == "anthropic") {
    std::string upper = provider == "openai" ? "OPENAI" : "ANTHROPIC";
    if (!env(upper + "_API_KEY") && !env(upper + "_BASE_URL")) {
      return upper + "_API_KEY is not set (needed by the " + provider + " backend; set " + upper +
             "_BASE_URL instead for a server that needs no key)";
    }
    if (auto retries = env(kProviderMaxRetriesVariable); retries && !parse_max_retries(*retries)) {
      return std::string(kProviderMaxRetriesVariable) + "='" + *retries + "' is not a whole number from 0 to 100";
    }
    // The default transport posts through the HTTP module: a run that cannot load it is refused
    // before its first stage, like one without a key.
    return config_.transport ? "" : http_module_problem();
  }
  if (starts_with(provider, "cli:")) {
    std::string agent = provider.substr(4);
    CliBackendSettings settings;
    if (auto custom = env(cli_command_variable(agent))) settings.commands[agent] = *custom;
    std::string command = cli_command_template(agent, "", settings);
    if (command.empty()) return cli_command_variable(agent) + " is not set (cli agent '" + agent + "' has no built-in command)";
    std::string path = env("PATH").value_or("");
    for (const auto& [k, v] : config_.cli_env) {
      if (k == "PATH") path = v;
    }
    std::string exe = command_executable(command);
    if (!on_path(exe, path)) {
      return "'" + exe + "' (cli agent " + agent + ") was not found on PATH; install it or set " +
             cli_command_variable(agent);
    }
    return "";
  }
  if (provider == "gemini") {
    return "provider 'gemini' is not supported; set llm_provider to cli:gemini, or to openai with an "
           "OpenAI-compatible OPENAI_BASE_URL";
  }
  return "unknown llm_provider '" + provider + "' (expected simulate, openai, anthropic, agent, cli or cli:<agent>)";
}

std::vector<std::string> RoutingBackend::check(const Graph& graph, const HandlerCatalog& handlers) const {
  std::map<std::string, std::vector<std::string>> nodes_by_provider;
  std::vector<std::string> order;
  for (auto v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    if (!node_uses_llm(node, handlers)) continue;
    std::string provider = provider_for(node, graph);
    if (!nodes_by_provider.count(provider)) order.push_back(provider);
    nodes_by_provider[provider].push_back(node.id);
  }
  std::vector<std::string> problems;
  for (const std::string& provider : order) {
    std::string problem = provider_problem(provider);
    if (!problem.empty()) problems.push_back(problem + " [nodes: " + join(nodes_by_provider[provider]) + "]");
  }
  return problems;
}

ProviderSettings RoutingBackend::settings_for(const std::string& vendor) const {
  const std::string upper = vendor == "openai" ? "OPENAI" : "ANTHROPIC";
  ProviderSettings settings;
  settings.api_key = env(upper + "_API_KEY").value_or("");
  settings.base_url = env(upper + "_BASE_URL").value_or("");
  settings.default_model = default_model(vendor);
  settings.transport = config_.transport;
  settings.retry = config_.transport_retry;
  if (auto retries = env(kProviderMaxRetriesVariable)) {
    settings.retry.max_retries = parse_max_retries(*retries).value_or(settings.retry.max_retries);
  }
  settings.random = config_.transport_random;
  return settings;
}

std::shared_ptr<CodergenBackend> RoutingBackend::backend_for(const std::string& provider) {
  std::lock_guard lock(mutex_);
  if (auto it = backends_.find(provider); it != backends_.end()) return it->second;
  std::shared_ptr<CodergenBackend> backend;
  if (provider == "simulate") {
    backend = std::make_shared<SimulationBackend>(config_.responses);
  } else if (provider == "openai") {
    backend = std::make_shared<OpenAiBackend>(settings_for(provider));
  } else if (provider == "anthropic") {
    backend = std::make_shared<AnthropicBackend>(settings_for(provider));
  } else if (starts_with(provider, "agent:") && config_.agent_factory && provider_problem(provider).empty()) {
    backend = config_.agent_factory(provider.substr(6), settings_for(provider.substr(6)), config_.runner);
  } else if (starts_with(provider, "cli:")) {
    std::string agent = provider.substr(4);
    CliBackendSettings settings;
    if (auto custom = env(cli_command_variable(agent))) settings.commands[agent] = *custom;
    settings.env = config_.cli_env;
    settings.runner = config_.runner;
    backend = std::make_shared<CliBackend>(agent, settings);
  } else {
    std::string problem = provider_problem(provider);
    throw StageError(problem.empty() ? "no backend for provider '" + provider + "'" : problem, ErrorCategory::kTerminal);
  }
  backends_[provider] = backend;
  return backend;
}

bool RoutingBackend::acts_outside_process(const CodergenRequest& request) const {
  if (!request.node || !request.graph) return true;
  std::string provider = provider_for(*request.node, *request.graph);
  return provider != "simulate";
}

std::vector<FallbackStep> parse_llm_fallbacks(const std::string& text) {
  std::vector<FallbackStep> steps;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string entry = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (entry.empty()) continue;
    std::size_t colon = entry.find(':');
    FallbackStep step{lower(entry.substr(0, colon)), colon == std::string::npos ? "" : entry.substr(colon + 1)};
    if (step.provider == "cli" && colon != std::string::npos) {
      std::size_t next = step.model.find(':');
      step.provider += ":" + step.model.substr(0, next);
      step.model = next == std::string::npos ? "" : step.model.substr(next + 1);
    }
    bool known = step.provider == "openai" || step.provider == "anthropic" || step.provider == "simulate" ||
                 (starts_with(step.provider, "cli:") && step.provider.size() > 4);
    if (!known || (step.model.empty() && !starts_with(step.provider, "cli:"))) {
      throw std::invalid_argument("llm_fallbacks entry '" + entry +
                                  "' is not provider:model (providers: openai, anthropic, simulate, cli:<agent>)");
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

std::vector<FallbackStep> llm_fallbacks(const NodeData& node, const Graph& graph) {
  std::string text = node.get("llm_fallbacks");
  if (text.empty()) text = graph.data().get("llm_fallbacks");
  return text.empty() ? std::vector<FallbackStep>{} : parse_llm_fallbacks(text);
}

CodergenResult RoutingBackend::run_on(const std::string& provider, const CodergenRequest& request) {
  std::shared_ptr<CodergenBackend> backend = backend_for(provider);
  log().debug("stage {}: LLM backend {}", request.node->id, backend->name());
  CodergenResult result = backend->run(request);
  if (result.backend.empty()) result.backend = backend->name();
  return result;
}

CodergenResult RoutingBackend::run(const CodergenRequest& request) {
  if (!request.node || !request.graph) throw StageError("routing backend needs the node and graph", ErrorCategory::kTerminal);
  const NodeData& node = *request.node;
  std::string provider = provider_for(node, *request.graph);
  std::vector<FallbackStep> chain = llm_fallbacks(node, *request.graph);
  try {
    return run_on(provider, request);
  } catch (const StageError& e) {
    if (chain.empty() || e.category() != ErrorCategory::kRetryable) throw;
    std::vector<std::string> failed = {provider + ":" + node.llm_model()};
    std::optional<StageError> last = e;
    for (const FallbackStep& step : chain) {
      log().warn("stage {}: {} failed ({}); falling back to {}:{}", node.id, failed.back(), last->what(), step.provider,
                 step.model);
      CodergenRequest retry = request;
      retry.model_override = step.model;
      try {
        CodergenResult result = run_on(canonical_provider(step.provider, config_.env), retry);
        result.fallback_from = failed;
        return result;
      } catch (const StageError& next) {
        bool unavailable = !provider_problem(canonical_provider(step.provider, config_.env)).empty();
        if (next.category() != ErrorCategory::kRetryable && !unavailable) throw;
        failed.push_back(step.provider + ":" + step.model);
        last = next;
      }
    }
    throw StageError(std::string(last->what()) + " (fallbacks tried: " + join(failed) + ")", ErrorCategory::kRetryable,
                     last->retry_after_ms());
  }
}

}  // namespace attractor
