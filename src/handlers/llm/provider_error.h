#pragma once
/// \file
/// Provider failures mapped to the engine's error categories (unified-llm-spec §6.3, §6.4):
/// 429, 5xx and unknown statuses are retryable (with the provider's `Retry-After`), 400, 401,
/// 403, 404, 408, 413 and 422 are terminal; connection failures and timeouts are retryable.
/// Messages carry the provider's own error text so it reaches `status.json`'s failure_reason.

#include <cstdint>
#include <optional>
#include <string>

#include "attractor/model/outcome.h"
#include "handlers/llm/http_transport.h"

namespace attractor {

/// `error.message` (OpenAI and Anthropic shapes), else `message`, else the body's first 500 bytes.
std::string provider_error_message(const std::string& body);

/// Milliseconds from `retry-after-ms`, else `Retry-After` (delta seconds, fractional allowed, or an
/// HTTP-date compared with `now_ms`); nullopt when absent or unparsable.
std::optional<std::int64_t> retry_after_ms(const HttpResponse& response, std::int64_t now_ms);

/// True for the statuses that must not be retried.
bool is_terminal_http_status(int status);

/// The StageError for a non-2xx response, e.g. "openai: HTTP 401: Incorrect API key provided".
StageError provider_http_error(const std::string& provider, const HttpResponse& response, std::int64_t now_ms);

/// The StageError for a transport failure: retryable, except a missing HTTP module (terminal).
StageError provider_transport_error(const std::string& provider, const TransportError& error);

/// Posts `request` through `transport` and returns the 2xx response; a transport failure or any
/// other status becomes the provider's StageError (see above).
HttpResponse post_to_provider(HttpTransport& transport, const HttpRequest& request, const std::string& provider);

/// The deadline a backend gives its request or process for a node `timeout`: one second later, so
/// the engine's own timeout (which cancels the stage and reports "timed out") wins; this is only a
/// backstop for callers without the engine's watchdog.
std::optional<std::int64_t> backstop_timeout(std::optional<std::int64_t> node_timeout_ms);

/// `base` + `endpoint` where `base` may or may not end in `/v1`: "https://api.x.com" and
/// "https://api.x.com/v1/" both give "https://api.x.com/v1/<endpoint>".
std::string api_url(const std::string& base, const std::string& endpoint);

}  // namespace attractor
