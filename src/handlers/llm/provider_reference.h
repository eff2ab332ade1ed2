#pragma once
/// \file
/// The provider reference, generated from a provider table as Markdown: `attractor help
/// providers` prints it for the built-in table, and docs/llm.md (section 1) holds that output
/// between the kProvidersBegin and kProvidersEnd lines (a test compares the two).

#include <string>

#include "handlers/llm/provider_table.h"

namespace attractor {

/// One row per provider of `providers` (names, the models that select it, variables, default
/// model, capabilities), then each provider's summary.
std::string providers_reference(const ProviderTable& providers);

/// The lines around the generated text in docs/llm.md.
inline constexpr const char* kProvidersBegin = "<!-- begin: attractor help providers -->";
inline constexpr const char* kProvidersEnd = "<!-- end: attractor help providers -->";

}  // namespace attractor
