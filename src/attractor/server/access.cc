#include "attractor/server/access.h"

#include <array>
#include <fstream>
#include <random>

#include <fmt/format.h>

namespace attractor {

namespace {

/// The host name of a Host header or an origin's authority ("127.0.0.1:8080" -> "127.0.0.1").
std::string host_name(const std::string& host) {
  if (!host.empty() && host.front() == '[') return host.substr(0, host.find(']') + 1);
  return host.substr(0, host.find(':'));
}

bool is_loopback_name(const std::string& name) {
  return name == "localhost" || name == "[::1]" || name.rfind("127.", 0) == 0;
}

/// The value of cookie `name` in a Cookie header, or "".
std::string cookie_value(const std::string& header, const std::string& name) {
  std::size_t at = 0;
  while (at < header.size()) {
    std::size_t end = header.find(';', at);
    if (end == std::string::npos) end = header.size();
    std::string pair = header.substr(at, end - at);
    pair.erase(0, pair.find_first_not_of(' '));
    if (pair.compare(0, name.size() + 1, name + "=") == 0) return pair.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

bool is_state_changing(const std::string& method) { return method != "GET" && method != "HEAD" && method != "OPTIONS"; }

}  // namespace

std::string random_secret() {
  std::array<unsigned char, 16> bytes{};
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  urandom.read(reinterpret_cast<char*>(bytes.data()), bytes.size());
  if (!urandom) {
    std::random_device rd;
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  return hex;
}

bool constant_time_equal(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool is_loopback_address(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

AccessPolicy::AccessPolicy(std::string token, bool loopback) : token_(std::move(token)), loopback_(loopback) {}

bool AccessPolicy::authenticated(const RequestFacts& r) const {
  const std::string bearer = "Bearer ";
  if (r.authorization.compare(0, bearer.size(), bearer) == 0 &&
      constant_time_equal(r.authorization.substr(bearer.size()), token_)) {
    return true;
  }
  const std::string session = cookie_value(r.cookie, kSessionCookie);
  std::lock_guard lock(mutex_);
  return !session.empty() && sessions_.count(session) > 0;
}

AccessVerdict AccessPolicy::check(const RequestFacts& r) const {
  if (loopback_ && !is_loopback_name(host_name(r.host))) {
    return {421, "this server answers only to a loopback Host (127.0.0.1, localhost, [::1])"};
  }
  if (is_state_changing(r.method)) {
    if (r.sec_fetch_site == "cross-site") return {403, "cross-site request refused"};
    const std::string http = "http://";
    if (!r.origin.empty() && r.origin != http + r.host) {
      return {403, "request from another origin (" + r.origin + ") refused"};
    }
  }
  if (token_.empty() || r.path == "/login") return {};
  if (!authenticated(r)) return {401, "authentication required: Authorization: Bearer TOKEN, or log in at /login"};
  return {};
}

std::string AccessPolicy::new_login_code() {
  std::string code = random_secret();
  std::lock_guard lock(mutex_);
  codes_.insert(code);
  return code;
}

std::string AccessPolicy::new_session() {
  std::string session = random_secret() + random_secret();
  std::lock_guard lock(mutex_);
  sessions_.insert(session);
  return session;
}

std::optional<std::string> AccessPolicy::redeem_code(const std::string& code) {
  {
    std::lock_guard lock(mutex_);
    auto it = codes_.find(code);
    if (code.empty() || it == codes_.end()) return std::nullopt;
    codes_.erase(it);
  }
  return new_session();
}

std::optional<std::string> AccessPolicy::login_with_token(const std::string& token) {
  if (token_.empty() || !constant_time_equal(token, token_)) return std::nullopt;
  return new_session();
}

std::string AccessPolicy::session_cookie(const std::string& session) {
  return std::string(kSessionCookie) + "=" + session + "; HttpOnly; SameSite=Strict; Path=/";
}

}  // namespace attractor
