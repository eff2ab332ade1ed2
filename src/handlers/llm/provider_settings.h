#pragma once
/// \file
/// What an HTTP LLM backend needs: endpoint, key, default model, the transport to use and how
/// that transport retries (handlers/llm/transport_retry.h).

#include <cstdint>
#include <memory>
#include <string>

#include "attractor/engine/retry.h"
#include "handlers/llm/http_transport.h"
#include "handlers/llm/transport_retry.h"

namespace attractor {

struct ProviderSettings {
  std::string api_key;        ///< "" = send no key (local OpenAI-compatible servers)
  std::string base_url;       ///< with or without a trailing `/v1`
  std::string default_model;  ///< used when the node has no `llm_model`
  /// Anthropic: `max_tokens` when no thinking budget applies (the budget is added on top).
  std::int64_t max_tokens = 8192;
  std::shared_ptr<HttpTransport> transport;  ///< nullptr = HttplibTransport with the two deadlines below
  /// The request deadline and idle deadline of that transport (ATTRACTOR_LLM_TIMEOUT,
  /// ATTRACTOR_LLM_IDLE_TIMEOUT; handlers/llm/http_transport.h).
  std::int64_t request_timeout_ms = kDefaultLlmRequestTimeoutMs;
  std::int64_t idle_timeout_ms = kDefaultLlmIdleTimeoutMs;
  TransportRetryPolicy retry;  ///< transport retries of each call (spec defaults)
  UniformRandom random;        ///< jitter of those retries; empty = default_random()
};

}  // namespace attractor
