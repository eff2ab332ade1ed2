#include "support/fake_provider.h"

#include <algorithm>
#include <vector>

#include "handlers/llm/openai_backend.h"
#include "handlers/llm/provider_lint.h"
#include "handlers/registry.h"

namespace attractor::testing {

ProviderRecord compat_provider() {
  ProviderRecord r;
  r.name = "compat";
  r.summary = "An OpenAI-compatible service (a test provider).";
  r.model_prefixes = {"compat-"};
  r.key_variable = "COMPAT_API_KEY";
  r.base_url_variable = "COMPAT_BASE_URL";
  r.model_variable = "COMPAT_MODEL";
  r.default_model = "compat-small";
  r.capabilities.fallback = true;
  r.check = [](const ProviderUse& use) { return http_provider_problem(use.record, use.config); };
  r.make = [](const ProviderUse& use) -> std::shared_ptr<CodergenBackend> {
    return std::make_shared<OpenAiBackend>(provider_settings(use.record, use.config));
  };
  return r;
}

std::shared_ptr<const ProviderTable> providers_with_compat() {
  auto table = std::make_shared<ProviderTable>(*builtin_providers());
  table->add(compat_provider());
  return table;
}

HandlerCatalog catalog_with_providers(std::shared_ptr<const ProviderTable> providers) {
  HandlerCatalog catalog = builtin_handler_catalog();
  std::vector<HandlerDescription> changed;
  for (const HandlerDescription* d : catalog.descriptions()) {
    HandlerDescription copy = *d;
    auto it = std::find_if(copy.checks.begin(), copy.checks.end(),
                           [](const ConfigCheck& c) { return c.rule == kLlmProviderRule; });
    if (it == copy.checks.end()) continue;
    *it = llm_provider_check(providers);
    changed.push_back(std::move(copy));
  }
  for (HandlerDescription& d : changed) catalog.add(std::move(d));
  return catalog;
}

}  // namespace attractor::testing
