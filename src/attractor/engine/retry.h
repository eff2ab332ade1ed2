#pragma once
/// \file
/// Retry policy (spec §3.5, §3.6): attempts from `max_retries` / `default_max_retries`, backoff
/// presets, exponential delays with jitter, and the should-retry rule decided in docs/decisions.md
/// (RETRY and FAIL outcomes are retried unless the failure is terminal).
///
/// Selecting a policy: node attribute `retry_policy` (else graph attribute `retry_policy`) names a
/// preset (`none`, `standard`, `aggressive`, `linear`, `patient`) that sets the attempts and the
/// backoff. An explicit node `max_retries` always wins for the attempt count; without a preset the
/// count comes from `max_retries`, else `default_max_retries` (legacy `default_max_retry`), else 0,
/// and the backoff is the §3.6 default (200 ms, factor 2, cap 60 s, jitter). Node or graph
/// attributes `retry_initial_delay`, `retry_backoff_factor`, `retry_max_delay` and `retry_jitter`
/// override single fields.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "attractor/model/graph.h"
#include "attractor/model/outcome.h"

namespace attractor {

struct BackoffConfig {
  std::int64_t initial_delay_ms = 200;
  double backoff_factor = 2.0;
  std::int64_t max_delay_ms = 60000;
  bool jitter = true;
};

/// Source of uniform random numbers in [0, 1); injectable so jittered delays are testable.
using UniformRandom = std::function<double()>;
/// A thread-safe uniform generator seeded from the system.
UniformRandom default_random();

struct RetryPolicy {
  std::int64_t max_attempts = 1;  ///< at least 1
  BackoffConfig backoff;
  std::string preset;  ///< preset name, "" when built from attributes only

  /// Delay before retry number `attempt` (1-based): initial * factor^(attempt-1), capped, then
  /// multiplied by uniform(0.5, 1.5) when jitter is on.
  std::int64_t delay_for_attempt(std::int64_t attempt, const UniformRandom& random) const;
};

/// The five presets of §3.6; nullopt for an unknown name.
std::optional<RetryPolicy> retry_preset(std::string_view name);

/// The policy for a node, following the precedence in the file comment.
RetryPolicy build_retry_policy(const NodeData& node, const GraphData& graph);

/// docs/decisions.md: RETRY and FAIL are retried while attempts remain, except terminal or pipeline
/// failures. SUCCESS, PARTIAL_SUCCESS and SKIPPED never are.
bool should_retry(const Outcome& outcome);

}  // namespace attractor
