#pragma once
// A provider that attractor does not have, added the way provider_table.cc adds the built-in
// ones (ProviderTable::add of a ProviderRecord): `compat`, an OpenAI-compatible service (models
// compat-*, COMPAT_API_KEY, COMPAT_BASE_URL, COMPAT_MODEL with default compat-small), served in
// tests by FakeLlmServer. With it: the table, and a handler catalog whose `llm_provider` lint
// rule reads that table.

#include <memory>

#include "attractor/check/handler_catalog.h"
#include "handlers/llm/provider_table.h"

namespace attractor::testing {

/// The `compat` provider record.
ProviderRecord compat_provider();

/// The built-in providers, then compat_provider().
std::shared_ptr<const ProviderTable> providers_with_compat();

/// The built-in handler catalog whose `llm_provider` rule checks names against `providers`.
HandlerCatalog catalog_with_providers(std::shared_ptr<const ProviderTable> providers);

}  // namespace attractor::testing
