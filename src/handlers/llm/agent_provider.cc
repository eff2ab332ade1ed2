#include "handlers/llm/agent_provider.h"

#include <algorithm>
#include <cctype>

#include "attractor/base/ascii.h"
#include "handlers/llm/provider_table.h"

namespace attractor {

namespace {

/// The provider a bare `agent` stands for at `node` ("" without a node).
std::string agent_vendor(const ProviderTable& table, const EnvLookup& env, const NodeData* node) {
  if (!node) return "";
  const ProviderRecord* by_model = table.find(table.from_model(node->llm_model()));
  if (by_model && by_model->make && by_model->capabilities.tools) return by_model->name;
  auto get = [&](const std::string& name) { return env && !name.empty() ? env(name) : std::nullopt; };
  if (auto chosen = get("ATTRACTOR_AGENT_PROVIDER")) return ascii_lower(*chosen);
  const ProviderRecord* anthropic = table.find("anthropic");
  if (anthropic && (get(anthropic->key_variable) || get(anthropic->base_url_variable))) return "anthropic";
  return "openai";
}

/// The provider the agent drives for `use`, when it has tools; nullptr otherwise.
const ProviderRecord* vendor_of(const ProviderUse& use) {
  const ProviderRecord* vendor = use.table.find(use.variant);
  return vendor && vendor->make && vendor->capabilities.tools ? vendor : nullptr;
}

std::string agent_problem(const ProviderUse& use) {
  if (!use.config.agent_factory) return "the built-in coding agent is not available here";
  const ProviderRecord* vendor = vendor_of(use);
  if (!vendor) {
    return "the coding agent speaks " + use.table.tool_provider_choices() + ", not '" + use.variant +
           "' (ATTRACTOR_AGENT_PROVIDER)";
  }
  return vendor->check ? vendor->check(ProviderUse{use.table, use.config, *vendor, ""}) : "";
}

}  // namespace

ProviderRecord agent_provider() {
  ProviderRecord r;
  r.name = "agent";
  r.summary = "The built-in coding agent (files, shell, patches, tool hooks) driving a provider with tools.";
  r.variants = ProviderVariants::kToolProvider;
  r.variant_word = "provider";
  r.default_variant = agent_vendor;
  r.wraps_model_provider = true;
  r.capabilities.runs_commands = true;
  r.check = agent_problem;
  r.make = [](const ProviderUse& use) -> std::shared_ptr<CodergenBackend> {
    if (!agent_problem(use).empty()) return nullptr;
    const ProviderRecord& vendor = *vendor_of(use);
    return use.config.agent_factory(vendor.name, provider_settings(vendor, use.config), use.config.runner);
  };
  return r;
}

}  // namespace attractor
