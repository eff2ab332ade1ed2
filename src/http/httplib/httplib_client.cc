#include "http/httplib/httplib_client.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace attractor {

namespace {

/// What went wrong, in words a user can act on (httplib's own names are one word: "Connection").
std::string describe_http_error(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection: return "cannot connect (connection refused, or the host is unreachable)";
    case httplib::Error::ConnectionTimeout: return "timed out connecting";
    case httplib::Error::Read: return "the connection closed before the whole response came";
    case httplib::Error::Write: return "the connection closed while the request was being sent";
    case httplib::Error::SSLConnection: return "the TLS handshake failed";
    case httplib::Error::SSLServerVerification: return "the server's TLS certificate could not be verified";
    case httplib::Error::SSLLoadingCerts: return "the system's CA certificates could not be loaded";
    default: return httplib::to_string(error);
  }
}

/// The connection, read and write timeouts of `client`: a read or write waits at most `idle_ms`
/// for progress (cpp-httplib's timeouts are per socket operation), never beyond the deadline `ms`.
void set_timeouts(httplib::Client& client, std::int64_t ms, std::int64_t idle_ms) {
  std::int64_t connect_ms = std::min<std::int64_t>(ms, 10'000);
  std::int64_t io_ms = std::min(ms, idle_ms);
  client.set_connection_timeout(static_cast<time_t>(connect_ms / 1000),
                                static_cast<time_t>((connect_ms % 1000) * 1000));
  client.set_read_timeout(static_cast<time_t>(io_ms / 1000), static_cast<time_t>((io_ms % 1000) * 1000));
  client.set_write_timeout(static_cast<time_t>(io_ms / 1000), static_cast<time_t>((io_ms % 1000) * 1000));
}

/// Stops `client` when the request's token fires or its deadline passes, until `finish()`.
class Watchdog {
 public:
  Watchdog(httplib::Client& client, const CancelToken& cancel, std::chrono::steady_clock::time_point deadline)
      : thread_([this, &client, cancel, deadline] { watch(client, cancel, deadline); }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() { finish(); }

  /// The request returned: stops watching. Idempotent.
  void finish() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  /// The deadline (not the token) stopped the request.
  bool expired() const { return expired_; }

 private:
  void watch(httplib::Client& client, const CancelToken& cancel, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    while (!done_) {
      if (cancel.cancelled() || std::chrono::steady_clock::now() >= deadline) {
        expired_ = !cancel.cancelled();
        lock.unlock();
        client.stop();
        lock.lock();
      }
      cv_.wait_for(lock, std::chrono::milliseconds(10), [&] { return done_; });
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> expired_{false};
  std::thread thread_;
};

HttpResponse to_response(const httplib::Response& result) {
  HttpResponse response;
  response.status = result.status;
  response.body = result.body;
  for (const auto& [k, v] : result.headers) response.headers.emplace(lower_ascii(k), v);
  return response;
}

}  // namespace

HttpResponse httplib_post(const HttpRequest& request, std::int64_t default_timeout_ms) {
  auto [origin, path] = split_url(request.url);
  if (path.empty()) path = "/";
  std::int64_t timeout_ms = std::max<std::int64_t>(1, request.timeout_ms.value_or(default_timeout_ms));
  std::int64_t idle_ms = std::max<std::int64_t>(1, request.idle_timeout_ms.value_or(timeout_ms));
  httplib::Client client(origin);
  if (!client.is_valid()) throw TransportError(TransportError::Kind::kConnection, "invalid URL " + request.url);
  set_timeouts(client, timeout_ms, idle_ms);
  httplib::Headers headers;
  for (const auto& [k, v] : request.headers) headers.emplace(k, v);

  const auto started = std::chrono::steady_clock::now();
  auto deadline = started + std::chrono::milliseconds(timeout_ms);
  Watchdog watchdog(client, request.cancel, deadline);
  httplib::Result result = client.Post(path, headers, request.body, "application/json");
  watchdog.finish();

  if (request.cancel.cancelled()) throw TransportError(TransportError::Kind::kCancelled, "request cancelled");
  if (!result) {
    httplib::Error error = result.error();
    if (watchdog.expired() || error == httplib::Error::Read || error == httplib::Error::Write) {
      if (watchdog.expired() || std::chrono::steady_clock::now() >= deadline) {
        throw TransportError(TransportError::Kind::kTimeout,
                             "no response from " + origin + " within " + std::to_string(timeout_ms) + "ms");
      }
      // A read or write that failed after waiting the idle time out (a reset fails sooner).
      if (idle_ms < timeout_ms && std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(idle_ms)) {
        throw TransportError(TransportError::Kind::kIdle, "nothing received from " + origin + " for " +
                                                              std::to_string(idle_ms) + "ms (idle deadline)");
      }
    }
    throw TransportError(TransportError::Kind::kConnection,
                         "request to " + origin + path + " failed: " + describe_http_error(error));
  }
  return to_response(*result);
}

}  // namespace attractor
