#pragma once
/// \file
/// The `agent` provider record: the built-in coding agent (handlers/agent) over a provider with
/// tools, `agent:openai` or `agent:anthropic`. The bare name takes the provider of the node's
/// `llm_model` when it has tools, else ATTRACTOR_AGENT_PROVIDER, else anthropic when
/// ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL is set, else openai. Its backend comes from
/// BackendConfig::agent_factory, since the agent lives in a layer above this one.

#include "handlers/llm/provider.h"

namespace attractor {

/// The `agent` provider record (provider_table.h).
ProviderRecord agent_provider();

}  // namespace attractor
