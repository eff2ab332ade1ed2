#include "handlers/llm/http_transport.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace attractor {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

void set_timeouts(httplib::Client& client, std::int64_t ms) {
  std::int64_t connect_ms = std::min<std::int64_t>(ms, 10'000);
  client.set_connection_timeout(static_cast<time_t>(connect_ms / 1000), static_cast<time_t>((connect_ms % 1000) * 1000));
  client.set_read_timeout(static_cast<time_t>(ms / 1000), static_cast<time_t>((ms % 1000) * 1000));
  client.set_write_timeout(static_cast<time_t>(ms / 1000), static_cast<time_t>((ms % 1000) * 1000));
}

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(lower(name));
  return it == headers.end() ? std::string() : it->second;
}

std::pair<std::string, std::string> split_url(const std::string& url) {
  auto scheme = url.find("://");
  std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  auto slash = url.find('/', start);
  if (slash == std::string::npos) return {url, ""};
  std::string path = url.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  return {url.substr(0, slash), path};
}

HttpResponse HttplibTransport::post(const HttpRequest& request) {
  auto [origin, path] = split_url(request.url);
  if (path.empty()) path = "/";
  std::int64_t timeout_ms = std::max<std::int64_t>(1, request.timeout_ms.value_or(default_timeout_ms_));
  httplib::Client client(origin);
  if (!client.is_valid()) throw TransportError(TransportError::Kind::kConnection, "invalid URL " + request.url);
  set_timeouts(client, timeout_ms);
  httplib::Headers headers;
  for (const auto& [k, v] : request.headers) headers.emplace(k, v);

  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  bool expired = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::thread watcher([&] {
    std::unique_lock lock(mutex);
    while (!done) {
      if (request.cancel.cancelled() || std::chrono::steady_clock::now() >= deadline) {
        expired = !request.cancel.cancelled();
        lock.unlock();
        client.stop();
        lock.lock();
        cv.wait_for(lock, std::chrono::milliseconds(10), [&] { return done; });
        continue;
      }
      cv.wait_for(lock, std::chrono::milliseconds(10), [&] { return done; });
    }
  });
  httplib::Result result = client.Post(path, headers, request.body, "application/json");
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  cv.notify_all();
  watcher.join();

  if (request.cancel.cancelled()) throw TransportError(TransportError::Kind::kCancelled, "request cancelled");
  if (!result) {
    httplib::Error error = result.error();
    if (expired || error == httplib::Error::Read || error == httplib::Error::Write) {
      if (expired || std::chrono::steady_clock::now() >= deadline) {
        throw TransportError(TransportError::Kind::kTimeout,
                             "no response from " + origin + " within " + std::to_string(timeout_ms) + "ms");
      }
    }
    throw TransportError(TransportError::Kind::kConnection,
                         "request to " + origin + path + " failed: " + httplib::to_string(error));
  }
  HttpResponse response;
  response.status = result->status;
  response.body = result->body;
  for (const auto& [k, v] : result->headers) response.headers.emplace(lower(k), v);
  return response;
}

}  // namespace attractor
