#include "handlers/llm/transport_retry.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "attractor/base/log.h"
#include "attractor/model/outcome.h"
#include "handlers/llm/provider_error.h"

namespace attractor {

namespace {

/// "1.2s", "60s": seconds with one decimal, without a trailing ".0".
std::string seconds(std::int64_t ms) {
  std::string text = fmt::format("{:.1f}", static_cast<double>(ms) / 1000.0);
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text + "s";
}

/// `message` without its "provider: " prefix, for log lines that name the provider themselves.
std::string without_provider(const std::string& message, const std::string& provider) {
  const std::string prefix = provider + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

/// The wait before retry `retry` after `error`, or nullopt when the error must not be retried;
/// throws the error, reworded, when its Retry-After is longer than the policy allows.
std::optional<std::int64_t> retry_delay(const StageError& error, int retry, const TransportRetryPolicy& policy,
                                        const UniformRandom& random) {
  if (error.category() != ErrorCategory::kRetryable || retry >= policy.max_retries) return std::nullopt;
  if (std::optional<std::int64_t> after = error.retry_after_ms()) {
    if (*after > policy.max_delay_ms) {
      throw StageError(fmt::format("{} (Retry-After {} is longer than the {} retry limit; not retried)", error.what(),
                                   seconds(*after), seconds(policy.max_delay_ms)),
                       error.category(), error.retry_after_ms());
    }
    return *after;
  }
  return policy.backoff_ms(retry, random);
}

}  // namespace

std::int64_t TransportRetryPolicy::backoff_ms(int retry, const UniformRandom& random) const {
  double delay = static_cast<double>(base_delay_ms) * std::pow(backoff_multiplier, std::max(retry, 0));
  delay = std::min(delay, static_cast<double>(max_delay_ms));
  if (jitter) delay *= 0.5 + (random ? random() : 0.5);
  return static_cast<std::int64_t>(std::llround(delay));
}

HttpResponse post_with_retries(HttpTransport& transport, const HttpRequest& request, const std::string& provider,
                               const TransportRetryPolicy& policy, Clock& clock, const UniformRandom& random) {
  std::optional<std::int64_t> deadline;
  if (request.timeout_ms) deadline = clock.now_ms() + *request.timeout_ms;
  for (int retry = 0;; ++retry) {
    HttpRequest attempt = request;
    if (deadline) attempt.timeout_ms = std::max<std::int64_t>(1, *deadline - clock.now_ms());
    try {
      return post_to_provider(transport, attempt, provider);
    } catch (const StageError& error) {
      if (request.cancel.cancelled()) throw;
      std::optional<std::int64_t> delay = retry_delay(error, retry, policy, random);
      if (!delay) throw;
      if (deadline && clock.now_ms() + *delay >= *deadline) {
        log().info("{}: {}; not retried: the wait of {} would pass the request's deadline", provider,
                   without_provider(error.what(), provider), seconds(*delay));
        throw;
      }
      log().warn("{}: {}; retrying in {} (attempt {} of {})", provider, without_provider(error.what(), provider),
                 seconds(*delay), retry + 2, policy.max_retries + 1);
      if (!clock.sleep_ms(*delay, request.cancel)) throw;
    }
  }
}

}  // namespace attractor
