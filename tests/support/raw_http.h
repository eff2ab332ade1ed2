#pragma once
// HTTP/1.1 over a plain loopback socket, byte for byte as a test writes it: for the hostile
// clients of the server hardening tests (idle connections, slow heads, huge headers, readers that
// never read), which a real HTTP client library would not produce.

#include <chrono>
#include <string>

namespace attractor::testing {

/// A TCP connection to 127.0.0.1:`port`; closed by the destructor.
class RawConnection {
 public:
  /// `receive_buffer` > 0 sets SO_RCVBUF before connecting (a reader with a small window).
  explicit RawConnection(int port, int receive_buffer = 0);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  /// Sends all of `data`; false when the connection refuses it.
  bool send(const std::string& data);
  /// Reads until the peer closes, `limit` bytes arrived, or `timeout` passes; returns what came.
  std::string receive(std::chrono::milliseconds timeout, std::size_t limit = 1 << 20);
  /// Reads one response head and its Content-Length body (or what arrives before `timeout`).
  std::string receive_response(std::chrono::milliseconds timeout);
  /// True when the peer has closed the connection (reads EOF or a reset within `timeout`).
  bool closed_by_peer(std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
  std::string pending_;
};

/// The status code of a raw response ("HTTP/1.1 431 ..."), 0 when there is none.
int raw_status(const std::string& response);
/// The body of a raw response (after the blank line).
std::string raw_body(const std::string& response);

}  // namespace attractor::testing
