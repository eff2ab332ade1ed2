#pragma once
/// \file
/// The `gemini` provider record: recognised (from `gemini-*` models or `llm_provider=gemini`) only
/// to be refused with what to use instead, since attractor has no Gemini API client.

#include "handlers/llm/provider.h"

namespace attractor {

/// The `gemini` provider record (provider_table.h); it has no backend.
ProviderRecord gemini_provider();

}  // namespace attractor
