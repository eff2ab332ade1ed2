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

/// What the coding agent reads on its node (agent_backend.cc); limits as in AgentLimits.
std::vector<AttributeSpec> agent_attributes() {
  const std::string when = " (llm_provider=agent)";
  return {
      {"workdir", AttributeType::kPath, "",
       "Directory the coding agent works in, relative to the directory attractor was started in (default: the "
       "graph's workdir, else that directory); the stage fails when it does not exist" +
           when + "."},
      {"agent.max_turns", AttributeType::kNonNegativeInteger, "0",
       "Most model calls of the coding agent's session; 0 = no limit" + when + "."},
      {"agent.max_tool_rounds", AttributeType::kPositiveInteger, "200",
       "Most rounds of tool calls the coding agent makes for one input" + when + "."},
      {"agent.instructions", AttributeType::kString, "",
       "Text added at the end of the coding agent's system prompt, after the project's instructions" + when + "."},
  };
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
  r.attributes = agent_attributes();
  r.make = [](const ProviderUse& use) -> std::shared_ptr<CodergenBackend> {
    if (!agent_problem(use).empty()) return nullptr;
    const ProviderRecord& vendor = *vendor_of(use);
    return use.config.agent_factory(vendor.name, provider_settings(vendor, use.config), use.config.runner);
  };
  return r;
}

}  // namespace attractor
