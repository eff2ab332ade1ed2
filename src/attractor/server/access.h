#pragma once
/// \file
/// Who may talk to `attractor serve` (docs/server.md section 2): the access token and the browser
/// sessions it opens, the exact Host allow-list that defeats DNS rebinding, and the exact Origin
/// check for state-changing requests. Pure decisions over request headers, so tests can probe
/// every rule without a socket.

#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace attractor {

/// The parts of a request the checks read.
struct RequestFacts {
  std::string method;
  std::string path;
  std::string host;            ///< Host header
  std::string origin;          ///< Origin header ("" when absent)
  std::string sec_fetch_site;  ///< Sec-Fetch-Site header
  std::string authorization;   ///< Authorization header
  std::string cookie;          ///< Cookie header
};

/// The outcome of `AccessPolicy::check`, with the HTTP status to refuse with.
struct AccessVerdict {
  int status = 0;  ///< 0 = allowed; else 401, 403 or 421
  std::string reason;
  bool allowed() const { return status == 0; }
};

/// The name of the session cookie the login sets.
inline constexpr const char* kSessionCookie = "attractor_session";

class AccessPolicy {
 public:
  /// `token` empty = no authentication (`--no-auth`, allowed only on loopback; the server
  /// enforces that). No Host is allowed until `set_allowed_hosts`.
  explicit AccessPolicy(std::string token);

  bool requires_token() const { return !token_.empty(); }
  const std::string& token() const { return token_; }

  /// The exact Host header values this server answers to (lower case, with the port as a browser
  /// sends it, see `allowed_hosts`); its own origins are `http://` + each of them.
  void set_allowed_hosts(std::vector<std::string> hosts);
  const std::vector<std::string>& allowed_hosts() const { return hosts_; }

  /// Allowed, or why not. `/login` is reachable without credentials.
  AccessVerdict check(const RequestFacts& request) const;

  /// A fresh one-time login code (random, 32 hex digits).
  std::string new_login_code();
  /// A new session id when `code` is an unused login code (it is used up), else nullopt.
  std::optional<std::string> redeem_code(const std::string& code);
  /// A new session id when `token` is the access token, else nullopt.
  std::optional<std::string> login_with_token(const std::string& token);

  /// The Set-Cookie value for `session`.
  static std::string session_cookie(const std::string& session);

 private:
  bool authenticated(const RequestFacts& request) const;
  std::string new_session();

  std::string token_;
  std::vector<std::string> hosts_;
  mutable std::mutex mutex_;
  std::set<std::string> codes_;
  std::set<std::string> sessions_;
};

/// 32 random hex digits from the system's random source.
std::string random_secret();

/// True when `a` and `b` are equal, in time that depends only on their lengths.
bool constant_time_equal(const std::string& a, const std::string& b);

/// True for a loopback listen address (127.0.0.0/8 in dotted quad, ::1, localhost).
bool is_loopback_address(const std::string& address);

/// The Host header values a server listening on `address`:`port` answers to: the address itself
/// (`[::1]` bracketed), `localhost` for 127.0.0.1 and ::1, every interface address and the host
/// name for a wildcard address (0.0.0.0, ::), and each of `extra_names` (`--allow-host`). Each
/// with `:PORT`, and also without it when the port is 80. Lower case, sorted, no duplicates.
std::vector<std::string> allowed_hosts(const std::string& address, int port,
                                       const std::vector<std::string>& extra_names);

}  // namespace attractor
