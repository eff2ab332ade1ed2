#pragma once
/// \file
/// The `llm_provider` lint rule [warning]: a node's `llm_provider` (after the stylesheet) and the
/// graph's name a provider of the table, with "did you mean" for a near miss (`opnai` → openai).
/// A warning, not an error, because `--simulate` runs such a graph; a real run refuses the
/// provider before its first stage (RoutingBackend::check). `cli:<agent>` accepts any agent name;
/// providers recognised only to be refused (gemini) are reported with their refusal. The graph's
/// value is reported once, with its first node.

#include <memory>

#include "attractor/check/handler_catalog.h"
#include "handlers/llm/provider_table.h"

namespace attractor {

/// The lint rule id.
inline constexpr const char* kLlmProviderRule = "llm_provider";

/// The `llm_provider` check over the providers of `providers`, run on every node.
ConfigCheck llm_provider_check(std::shared_ptr<const ProviderTable> providers);

}  // namespace attractor
