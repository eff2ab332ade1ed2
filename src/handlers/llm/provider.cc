#include "handlers/llm/provider.h"

#include <cstdlib>

#include "attractor/model/value.h"
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

std::optional<std::string> lookup(const EnvLookup& env, const std::string& name) {
  if (name.empty() || !env) return std::nullopt;
  return env(name);
}

/// ATTRACTOR_LLM_TIMEOUT / ATTRACTOR_LLM_IDLE_TIMEOUT: a positive duration ("90s", "5m",
/// "500ms"); nullopt for anything else.
std::optional<std::int64_t> parse_deadline(const std::string& text) {
  std::optional<std::int64_t> ms = parse_duration_ms(text);
  if (!ms || *ms <= 0) return std::nullopt;
  return ms;
}

/// The problem with deadline variable `name` in `env`, "" when it is unset or valid.
std::string deadline_problem(const EnvLookup& env, const char* name) {
  std::optional<std::string> text = lookup(env, name);
  if (!text || parse_deadline(*text)) return "";
  return std::string(name) + "='" + *text + "' is not a positive duration such as 90s, 5m or 500ms";
}

}  // namespace

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
}

std::string provider_default_model(const ProviderRecord& record, const EnvLookup& env) {
  return lookup(env, record.model_variable).value_or(record.default_model);
}

ProviderSettings provider_settings(const ProviderRecord& record, const BackendConfig& config) {
  ProviderSettings settings;
  settings.api_key = lookup(config.env, record.key_variable).value_or("");
  settings.base_url = lookup(config.env, record.base_url_variable).value_or(record.default_base_url);
  settings.default_model = provider_default_model(record, config.env);
  settings.transport = config.transport;
  settings.retry = config.transport_retry;
  if (auto retries = lookup(config.env, kProviderMaxRetriesVariable)) {
    settings.retry.max_retries = parse_max_retries(*retries).value_or(settings.retry.max_retries);
  }
  settings.random = config.transport_random;
  if (auto text = lookup(config.env, kLlmTimeoutVariable))
    settings.request_timeout_ms = parse_deadline(*text).value_or(settings.request_timeout_ms);
  if (auto text = lookup(config.env, kLlmIdleTimeoutVariable))
    settings.idle_timeout_ms = parse_deadline(*text).value_or(settings.idle_timeout_ms);
  return settings;
}

std::string http_provider_problem(const ProviderRecord& record, const BackendConfig& config) {
  if (!record.key_variable.empty() && !lookup(config.env, record.key_variable) &&
      !lookup(config.env, record.base_url_variable)) {
    std::string instead = record.base_url_variable.empty()
                              ? ""
                              : "; set " + record.base_url_variable + " instead for a server that needs no key";
    return record.key_variable + " is not set (needed by the " + record.name + " backend" + instead + ")";
  }
  if (auto retries = lookup(config.env, kProviderMaxRetriesVariable); retries && !parse_max_retries(*retries)) {
    return std::string(kProviderMaxRetriesVariable) + "='" + *retries + "' is not a whole number from 0 to 100";
  }
  for (const char* name : {kLlmTimeoutVariable, kLlmIdleTimeoutVariable}) {
    if (std::string problem = deadline_problem(config.env, name); !problem.empty()) return problem;
  }
  // The default transport posts through the HTTP module: a run that cannot load it is refused
  // before its first stage, like one without a key.
  return config.transport ? "" : http_module_problem();
}

}  // namespace attractor
