#pragma once
/// \file
/// Transport retries of one provider call (unified-llm-spec §6.6), below and independent of a
/// node's stage-level retry policy (attractor/engine/retry.h): a single 500 or 429 from the
/// provider no longer fails a stage that has no `max_retries`.
///
/// Retried: 429, 5xx and unknown statuses, connection failures and timeouts (the retryable
/// StageErrors of provider_error.h). Not retried: the terminal statuses (400, 401, 403, 404, 408,
/// 413, 422), anything after the request's CancelToken fired, a `Retry-After` longer than
/// `max_delay_ms` (the call fails at once, naming it), and a wait that would end past the request's
/// deadline (`HttpRequest::timeout_ms`, the node timeout's backstop). A shorter `Retry-After`
/// replaces the computed backoff. The wait sleeps on a `Clock`, so the CancelToken interrupts it
/// and tests use FakeClock; jitter comes from an injectable `UniformRandom`.

#include <cstdint>
#include <string>

#include "attractor/base/clock.h"
#include "attractor/engine/retry.h"
#include "handlers/llm/http_transport.h"

namespace attractor {

/// The spec's defaults: 2 retries after the first attempt, 1 s doubling to at most 60 s, ±50% jitter.
struct TransportRetryPolicy {
  int max_retries = 2;  ///< retries after the first attempt; 0 = never retry
  std::int64_t base_delay_ms = 1000;
  std::int64_t max_delay_ms = 60000;  ///< also the longest Retry-After that is waited for
  double backoff_multiplier = 2.0;
  bool jitter = true;

  /// Delay before retry `retry` (0 = the first retry): min(base * multiplier^retry, max_delay),
  /// then times uniform(0.5, 1.5) drawn from `random` (0.5 when empty) when jitter is on.
  std::int64_t backoff_ms(int retry, const UniformRandom& random) const;
};

/// The environment variable that sets TransportRetryPolicy::max_retries for the HTTP backends.
inline constexpr const char* kProviderMaxRetriesVariable = "ATTRACTOR_LLM_MAX_RETRIES";

/// Posts `request` through post_to_provider (provider_error.h), retrying as the file comment says;
/// waits sleep on `clock`. Returns the 2xx response or throws the last attempt's StageError.
/// Each retry is logged at warn, e.g. "openai: HTTP 500: boom; retrying in 1.2s (attempt 2 of 3)".
HttpResponse post_with_retries(HttpTransport& transport, const HttpRequest& request, const std::string& provider,
                               const TransportRetryPolicy& policy, Clock& clock, const UniformRandom& random);

}  // namespace attractor
