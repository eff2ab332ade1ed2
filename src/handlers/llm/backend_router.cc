#include "handlers/llm/backend_router.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "attractor/base/ascii.h"
#include "attractor/base/log.h"

namespace attractor {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::string provider_from_model(const std::string& model) { return builtin_providers()->from_model(model); }

std::string canonical_provider(const std::string& name, const EnvLookup& env) {
  return builtin_providers()->canonical(name, env);
}

bool is_known_provider(const std::string& canonical) { return builtin_providers()->is_known(canonical); }

bool node_uses_llm(const NodeData& node, const HandlerCatalog& handlers) {
  return uses_llm(handlers.traits(node), node);
}

RoutingBackend::RoutingBackend(BackendConfig config) : config_(std::move(config)) {
  if (!config_.env) config_.env = process_env();
  if (!config_.providers) config_.providers = builtin_providers();
}

std::string RoutingBackend::provider_for(const NodeData& node, const Graph& graph) const {
  const ProviderTable& table = providers();
  std::string p;
  if (!node.llm_provider().empty()) {
    p = table.canonical(node.llm_provider(), config_.env);
  } else {
    std::string fallback = !config_.default_provider.empty() ? config_.default_provider
                                                             : graph.data().get("llm_provider");
    fallback = table.canonical(fallback, config_.env);
    const ProviderRecord* wrapper = table.resolve(fallback).first;
    std::string from_model = table.from_model(node.llm_model());
    p = from_model.empty() || (wrapper && wrapper->wraps_model_provider) ? fallback : from_model;
  }
  const ProviderRecord* record = table.find(p);
  if (!record || record->variants == ProviderVariants::kNone || !record->default_variant) return p;
  std::string variant = record->default_variant(table, config_.env, &node);
  return variant.empty() ? p : p + ":" + variant;
}

std::string RoutingBackend::model_for(const NodeData& node, const Graph& graph) const {
  auto [record, variant] = providers().resolve(provider_for(node, graph));
  if (record && !record->fixed_model.empty()) return record->fixed_model;
  if (!node.llm_model().empty()) return node.llm_model();
  if (record && record->variants == ProviderVariants::kToolProvider) record = providers().find(variant);
  return record ? provider_default_model(*record, config_.env) : "";
}

BackendChoice RoutingBackend::plan(const NodeData& node, const Graph& graph) const {
  BackendChoice choice{provider_for(node, graph), model_for(node, graph), ""};
  auto runs = [this](const std::string& provider) {
    const ProviderRecord* record = providers().resolve(provider).first;
    return record && record->capabilities.runs_commands;
  };
  if (runs(choice.provider)) {
    choice.runs_commands = "llm_provider " + choice.provider;
    return choice;
  }
  try {
    for (const FallbackStep& step : llm_fallbacks(node, graph, providers())) {
      const std::string provider = providers().canonical(step.provider, config_.env);
      if (!runs(provider)) continue;
      choice.runs_commands = "llm_fallbacks " + provider;
      break;
    }
  } catch (const std::invalid_argument&) {
    // lint has refused the value already
  }
  return choice;
}

std::string RoutingBackend::stage_problem(const NodeData& node, const Graph& graph) const {
  return provider_problem(provider_for(node, graph));
}

std::string RoutingBackend::provider_problem(const std::string& provider) const {
  if (provider.empty()) {
    return "no LLM backend chosen: pass --backend openai|anthropic|cli (or set llm_provider on the graph or the "
           "nodes, or an llm_model such as gpt-4o or claude-sonnet-4-5), or pass --simulate to run these stages "
           "with the simulation backend";
  }
  auto [record, variant] = providers().resolve(provider);
  if (record && !record->make && !record->refusal.empty()) return record->refusal;
  if (!record || !record->make)
    return "unknown llm_provider '" + provider + "' (expected " + providers().choices() + ")";
  return record->check ? record->check(ProviderUse{providers(), config_, *record, variant}) : "";
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

std::shared_ptr<CodergenBackend> RoutingBackend::backend_for(const std::string& provider) {
  std::lock_guard lock(mutex_);
  if (auto it = backends_.find(provider); it != backends_.end()) return it->second;
  auto [record, variant] = providers().resolve(provider);
  std::shared_ptr<CodergenBackend> backend;
  if (record && record->make) backend = record->make(ProviderUse{providers(), config_, *record, variant});
  if (!backend) {
    std::string problem = provider_problem(provider);
    throw StageError(problem.empty() ? "no backend for provider '" + provider + "'" : problem,
                     ErrorCategory::kTerminal);
  }
  backends_[provider] = backend;
  return backend;
}

bool RoutingBackend::acts_outside_process(const CodergenRequest& request) const {
  if (!request.node || !request.graph) return true;
  const ProviderRecord* record = providers().resolve(provider_for(*request.node, *request.graph)).first;
  return !(record && record->capabilities.in_process);
}

namespace {

/// True when `record` may stand in a fallback chain as `step`: a fallback provider, a family with
/// its variant, and a model unless the provider picks its own (cli agents).
bool valid_fallback(const ProviderRecord* record, const FallbackStep& step, bool has_variant) {
  if (!record || !record->make || !record->capabilities.fallback) return false;
  const bool family = record->variants != ProviderVariants::kNone;
  if (family && (!has_variant || step.provider.size() == record->name.size() + 1)) return false;
  const bool own_model = record->default_model.empty() && record->model_variable.empty() && record->fixed_model.empty();
  return !step.model.empty() || own_model;
}

}  // namespace

std::vector<FallbackStep> parse_llm_fallbacks(const std::string& text, const ProviderTable& table) {
  std::vector<FallbackStep> steps;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string entry = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (entry.empty()) continue;
    std::size_t colon = entry.find(':');
    FallbackStep step{ascii_lower(entry.substr(0, colon)), colon == std::string::npos ? "" : entry.substr(colon + 1)};
    const ProviderRecord* record = table.find(step.provider);
    const bool family = record && record->variants != ProviderVariants::kNone;
    if (family && colon != std::string::npos) {
      std::size_t next = step.model.find(':');
      step.provider.append(1, ':').append(step.model, 0, next);
      step.model = next == std::string::npos ? "" : step.model.substr(next + 1);
    }
    if (!valid_fallback(record, step, colon != std::string::npos)) {
      throw std::invalid_argument("llm_fallbacks entry '" + entry +
                                  "' is not provider:model (providers: " + table.fallback_choices() + ")");
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

std::vector<FallbackStep> parse_llm_fallbacks(const std::string& text) {
  return parse_llm_fallbacks(text, *builtin_providers());
}

std::vector<FallbackStep> llm_fallbacks(const NodeData& node, const Graph& graph, const ProviderTable& table) {
  std::string text = node.get("llm_fallbacks");
  if (text.empty()) text = graph.data().get("llm_fallbacks");
  return text.empty() ? std::vector<FallbackStep>{} : parse_llm_fallbacks(text, table);
}

std::vector<FallbackStep> llm_fallbacks(const NodeData& node, const Graph& graph) {
  return llm_fallbacks(node, graph, *builtin_providers());
}

CodergenResult RoutingBackend::run_on(const std::string& provider, const CodergenRequest& request) {
  std::shared_ptr<CodergenBackend> backend = backend_for(provider);
  log().debug("stage {}: LLM backend {}", request.node->id, backend->name());
  CodergenResult result = backend->run(request);
  if (result.backend.empty()) result.backend = backend->name();
  return result;
}

CodergenResult RoutingBackend::run(const CodergenRequest& request) {
  if (!request.node || !request.graph)
    throw StageError("routing backend needs the node and graph", ErrorCategory::kTerminal);
  const NodeData& node = *request.node;
  std::string provider = provider_for(node, *request.graph);
  std::vector<FallbackStep> chain = llm_fallbacks(node, *request.graph, providers());
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
        CodergenResult result = run_on(providers().canonical(step.provider, config_.env), retry);
        result.fallback_from = failed;
        return result;
      } catch (const StageError& next) {
        bool unavailable = !provider_problem(providers().canonical(step.provider, config_.env)).empty();
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
