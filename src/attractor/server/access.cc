#include "attractor/server/access.h"

#include "attractor/base/ascii.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <random>

#include <fmt/format.h>

namespace attractor {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

/// `text` cut to 80 characters for an error message.
std::string shown(const std::string& text) { return text.size() <= 80 ? text : text.substr(0, 80) + "..."; }

bool is_ipv6(const std::string& address) {
  in6_addr a{};
  return inet_pton(AF_INET6, address.c_str(), &a) == 1;
}

/// The numeric addresses of this machine's interfaces (IPv4, and IPv6 without link-local ones
/// when `v6`).
std::vector<std::string> interface_addresses(bool v6) {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (i->ifa_addr->sa_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
      out.push_back(text);
    } else if (v6 && i->ifa_addr->sa_family == AF_INET6) {
      const in6_addr& a = reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr;
      if (IN6_IS_ADDR_LINKLOCAL(&a)) continue;
      inet_ntop(AF_INET6, &a, text, sizeof text);
      out.push_back(text);
    }
  }
  freeifaddrs(list);
  return out;
}

/// The names a Host header may use for a server listening on `address`.
std::vector<std::string> names_of(const std::string& address) {
  const std::string a = ascii_lower(address);
  if (a == "localhost") return {"localhost", "127.0.0.1", "::1"};
  if (a == "127.0.0.1" || a == "::1") return {a, "localhost"};
  if (a == "0.0.0.0" || a == "::" || a.empty()) {
    std::vector<std::string> names = interface_addresses(a == "::");
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0 && host[0]) names.push_back(host);
    names.push_back("localhost");
    return names;
  }
  return {a};
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
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return ascii_lower(address) == "localhost";
}

std::vector<std::string> allowed_hosts(const std::string& address, int port,
                                       const std::vector<std::string>& extra_names) {
  std::vector<std::string> names = names_of(address);
  for (const std::string& extra : extra_names) names.push_back(ascii_lower(extra));
  std::vector<std::string> hosts;
  for (const std::string& name : names) {
    const std::string authority = is_ipv6(name) ? "[" + name + "]" : name;
    hosts.push_back(authority + ":" + std::to_string(port));
    if (port == 80) hosts.push_back(authority);
  }
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

AccessPolicy::AccessPolicy(std::string token) : token_(std::move(token)) {}

void AccessPolicy::set_allowed_hosts(std::vector<std::string> hosts) { hosts_ = std::move(hosts); }

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
  if (!contains(hosts_, ascii_lower(r.host))) {
    std::string names;
    for (const std::string& h : hosts_) names += (names.empty() ? "" : ", ") + h;
    return {421, "Host '" + shown(r.host) + "' is not a name of this server (" + names +
                     "); start it with --allow-host NAME to answer to another"};
  }
  if (is_state_changing(r.method)) {
    if (r.sec_fetch_site == "cross-site") return {403, "cross-site request refused"};
    const std::string origin = ascii_lower(r.origin);
    if (!r.origin.empty() && (origin.rfind("http://", 0) != 0 || !contains(hosts_, origin.substr(7)))) {
      return {403, "request from another origin (" + shown(r.origin) + ") refused"};
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
