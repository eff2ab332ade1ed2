#pragma once
/// \file
/// The first look at a request, before cpp-httplib parses it (docs/server.md section 4): where its
/// head ends, how long its body is, and the requests refused at the door with the right status
/// (431 for a head over the limit, 411 for a chunked body, 413 for a body over the limit, 400 for
/// a head that is not HTTP/1.x). The head handed on is rebuilt: `Expect: 100-continue` is
/// answered here and dropped, and a POST, PUT or PATCH without a length gets `Content-Length: 0`
/// (RFC 9112 section 6.3: such a request has no body). Pure, so every case is tested without a
/// socket.

#include <cstddef>
#include <string>
#include <string_view>

namespace attractor {

/// What the door accepts.
struct HeadLimits {
  std::size_t max_head_bytes = 32 << 10;  ///< request line and headers, with their line ends
  std::size_t max_body_bytes = 2 << 20;
};

/// The outcome of scan_request_head.
struct HeadScan {
  enum class State { kIncomplete, kComplete, kRefused } state = State::kIncomplete;
  std::size_t head_bytes = 0;    ///< kComplete: bytes of the head in the buffer, blank line included
  std::size_t body_bytes = 0;    ///< kComplete: the Content-Length
  std::string head;              ///< kComplete: the head to hand on, ending in a blank line
  bool expect_continue = false;  ///< kComplete: the client waits for `100 Continue`
  int status = 0;                ///< kRefused: 400, 411, 413 or 431
  std::string reason;            ///< kRefused: one sentence for the client
};

/// Scans the start of `buffer` (the bytes of one connection, a request's first byte first).
HeadScan scan_request_head(std::string_view buffer, const HeadLimits& limits);

/// The reason phrase of a status the door answers with ("Request Header Fields Too Large", ...).
const char* door_reason_phrase(int status);

/// A whole `Connection: close` response with a JSON body `{"error": reason}`.
std::string door_response(int status, const std::string& reason);

}  // namespace attractor
