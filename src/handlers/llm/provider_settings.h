#pragma once
/// \file
/// What an HTTP LLM backend needs: endpoint, key, default model and the transport to use.

#include <cstdint>
#include <memory>
#include <string>

#include "handlers/llm/http_transport.h"

namespace attractor {

struct ProviderSettings {
  std::string api_key;        ///< "" = send no key (local OpenAI-compatible servers)
  std::string base_url;       ///< with or without a trailing `/v1`
  std::string default_model;  ///< used when the node has no `llm_model`
  /// Anthropic: `max_tokens` when no thinking budget applies (the budget is added on top).
  std::int64_t max_tokens = 8192;
  std::shared_ptr<HttpTransport> transport;  ///< nullptr = HttplibTransport
};

}  // namespace attractor
