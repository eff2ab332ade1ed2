#pragma once
/// \file
/// The connections of the HTTP module's server between accept and cpp-httplib
/// (http_server_backend.h ConnectionLimits, docs/server.md section 4). One poller thread holds
/// every connection that is waiting for or still receiving a request, with no thread of its own;
/// it reads the whole request (head and body, request_head.h refusing what the door refuses) under
/// the request deadline, then hands it to one of the worker threads, which let cpp-httplib parse
/// and answer it from memory and write the answer with the write timeout. An idle connection is
/// closed after the idle timeout, a slow request gets 408, and when the connection limits are
/// reached the oldest connection not being answered is closed to make room (503 when there is
/// none), so idle or slow clients never keep a request such as `/health` waiting.

#include <functional>
#include <memory>
#include <string>

#include "http/http_server_backend.h"

namespace attractor {

/// A whole request in memory and the connection it came on, as a worker answers it.
class GatedRequest {
 public:
  virtual ~GatedRequest() = default;
  /// The connection's socket (for cpp-httplib's stream).
  virtual int socket() const = 0;
  /// The request's head (rebuilt, request_head.h) and body.
  virtual const std::string& bytes() const = 0;
  /// True when this is the connection's last request (keep-alive limit or shutdown).
  virtual bool last() const = 0;
};

/// Answers one request; true when the connection may take another.
using GatedHandler = std::function<bool(GatedRequest& request)>;

class ConnectionGate {
 public:
  ConnectionGate(const HttpServerSettings& settings, GatedHandler handler, RefusalLogger refused);
  ~ConnectionGate();

  /// Takes over an accepted socket (from the listening thread; never blocks).
  void adopt(int socket);
  /// Closes every connection and joins the threads. Answers being written get up to 2 s to
  /// finish; then the sockets still busy are shut down, so an event stream ends at its next write.
  void shutdown();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace attractor
