#include "attractor/engine/retry.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <random>

namespace attractor {

UniformRandom default_random() {
  auto state = std::make_shared<std::pair<std::mutex, std::mt19937_64>>();
  state->second.seed(std::random_device{}());
  return [state]() {
    std::lock_guard lock(state->first);
    return std::uniform_real_distribution<double>(0.0, 1.0)(state->second);
  };
}

std::int64_t RetryPolicy::delay_for_attempt(std::int64_t attempt, const UniformRandom& random) const {
  if (attempt < 1) attempt = 1;
  double delay = static_cast<double>(backoff.initial_delay_ms) * std::pow(backoff.backoff_factor, attempt - 1);
  delay = std::min(delay, static_cast<double>(backoff.max_delay_ms));
  if (backoff.jitter) delay *= 0.5 + (random ? random() : 0.5);
  return static_cast<std::int64_t>(std::llround(delay));
}

std::optional<RetryPolicy> retry_preset(std::string_view name) {
  RetryPolicy p;
  p.preset = std::string(name);
  if (name == "none") {
    p.max_attempts = 1;
  } else if (name == "standard") {
    p.max_attempts = 5;
    p.backoff = {200, 2.0, 60000, true};
  } else if (name == "aggressive") {
    p.max_attempts = 5;
    p.backoff = {500, 2.0, 60000, true};
  } else if (name == "linear") {
    p.max_attempts = 3;
    p.backoff = {500, 1.0, 60000, true};
  } else if (name == "patient") {
    p.max_attempts = 3;
    p.backoff = {2000, 3.0, 60000, true};
  } else {
    return std::nullopt;
  }
  return p;
}

RetryPolicy build_retry_policy(const NodeData& node, const GraphData& graph) {
  RetryPolicy policy;
  std::string preset = node.get("retry_policy", graph.get("retry_policy"));
  std::optional<RetryPolicy> from_preset = preset.empty() ? std::nullopt : retry_preset(preset);
  if (from_preset) {
    policy = *from_preset;
  } else {
    policy.max_attempts = graph.default_max_retries() + 1;
  }
  if (auto explicit_retries = node.max_retries()) policy.max_attempts = *explicit_retries + 1;
  policy.max_attempts = std::max<std::int64_t>(1, policy.max_attempts);

  auto duration = [&](const char* key) {
    if (auto v = node.get_duration_ms(key)) return v;
    if (auto v = node.get_integer(key)) return v;
    if (auto v = graph.get_duration_ms(key)) return v;
    return graph.get_integer(key);
  };
  if (auto v = duration("retry_initial_delay")) policy.backoff.initial_delay_ms = *v;
  if (auto v = duration("retry_max_delay")) policy.backoff.max_delay_ms = *v;
  if (auto v = node.get_float("retry_backoff_factor")) policy.backoff.backoff_factor = *v;
  else if (auto g = graph.get_float("retry_backoff_factor")) policy.backoff.backoff_factor = *g;
  if (auto v = node.get_boolean("retry_jitter")) policy.backoff.jitter = *v;
  else if (auto g = graph.get_boolean("retry_jitter")) policy.backoff.jitter = *g;
  return policy;
}

bool should_retry(const Outcome& outcome) {
  if (outcome.status != StageStatus::kRetry && outcome.status != StageStatus::kFail) return false;
  return outcome.category == ErrorCategory::kRetryable;
}

}  // namespace attractor
