#include "handlers/llm/provider_error.h"

#include <cctype>
#include <cmath>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attractor/base/clock.h"
#include "attractor/base/json_limits.h"
#include "attractor/base/log.h"

namespace attractor {

std::string provider_error_message(const std::string& body) {
  nlohmann::json j = parse_json_or_discarded(body);
  if (j.is_object()) {
    if (j.contains("error")) {
      const nlohmann::json& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
      if (e.is_string()) return e.get<std::string>();
    }
    if (j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  }
  std::string text = body.substr(0, 500);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

std::optional<std::int64_t> retry_after_ms(const HttpResponse& response, std::int64_t now_ms) {
  std::string ms = response.header("retry-after-ms");
  if (!ms.empty()) {
    char* end = nullptr;
    double v = std::strtod(ms.c_str(), &end);
    if (end != ms.c_str() && v >= 0) return static_cast<std::int64_t>(std::ceil(v));
  }
  std::string value = response.header("retry-after");
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end != value.c_str() && *end == '\0' && seconds >= 0) return static_cast<std::int64_t>(std::ceil(seconds * 1000));
  std::tm tm{};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S", &tm) == nullptr) return std::nullopt;
  std::int64_t at_ms = static_cast<std::int64_t>(timegm(&tm)) * 1000;
  return at_ms > now_ms ? at_ms - now_ms : 0;
}

bool is_terminal_http_status(int status) {
  switch (status) {
    case 400:
    case 401:
    case 403:
    case 404:
    case 408:
    case 413:
    case 422: return true;
    default: return false;
  }
}

StageError provider_http_error(const std::string& provider, const HttpResponse& response, std::int64_t now_ms) {
  std::string message = provider + ": HTTP " + std::to_string(response.status);
  std::string detail = provider_error_message(response.body);
  if (!detail.empty()) message += ": " + detail;
  if (is_terminal_http_status(response.status)) return StageError(message, ErrorCategory::kTerminal);
  return StageError(message, ErrorCategory::kRetryable, retry_after_ms(response, now_ms));
}

StageError provider_transport_error(const std::string& provider, const TransportError& error) {
  // Without the HTTP module no request can be sent: retrying or falling back to another HTTP
  // provider would fail the same way.
  const ErrorCategory category = error.kind() == TransportError::Kind::kUnavailable ? ErrorCategory::kTerminal
                                                                                    : ErrorCategory::kRetryable;
  return StageError(provider + ": " + error.what(), category);
}

std::optional<std::int64_t> backstop_timeout(std::optional<std::int64_t> node_timeout_ms) {
  if (!node_timeout_ms || *node_timeout_ms <= 0) return std::nullopt;
  return *node_timeout_ms + 1000;
}

std::string api_url(const std::string& base, const std::string& endpoint) {
  std::string b = base;
  while (!b.empty() && b.back() == '/') b.pop_back();
  if (b.size() < 3 || b.compare(b.size() - 3, 3, "/v1") != 0) b += "/v1";
  return b + "/" + endpoint;
}

HttpResponse post_to_provider(HttpTransport& transport, const HttpRequest& request, const std::string& provider) {
  HttpResponse response;
  log().debug("{}: POST {}", provider, request.url);
  try {
    response = transport.post(request);
  } catch (const TransportError& e) {
    log().info("{}: POST {} failed: {}", provider, request.url, e.what());
    throw provider_transport_error(provider, e);
  }
  if (response.status < 200 || response.status >= 300) {
    StageError error = provider_http_error(provider, response, system_clock().now_ms());
    std::string wait = error.retry_after_ms() ? fmt::format("; Retry-After {}ms", *error.retry_after_ms()) : "";
    log().info("{}: POST {} answered HTTP {} ({}){}", provider, request.url, response.status,
               error.category() == ErrorCategory::kTerminal ? "terminal" : "retryable", wait);
    throw error;
  }
  return response;
}

}  // namespace attractor
