#include "http/httplib/httplib_server.h"

#include <httplib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstring>
#include <utility>

#include "http/httplib/connection_gate.h"

namespace attractor {

namespace {

/// A cpp-httplib request as a ServerRequest.
class Request : public ServerRequest {
 public:
  explicit Request(const httplib::Request& request) : request_(request) {}
  const std::string& method() const override { return request_.method; }
  const std::string& path() const override { return request_.path; }
  const std::string& body() const override { return request_.body; }
  const std::string& remote_addr() const override { return request_.remote_addr; }
  std::string match(std::size_t index) const override {
    return index < request_.matches.size() ? request_.matches[index].str() : std::string();
  }
  std::string header(const std::string& name) const override { return request_.get_header_value(name); }
  std::string param(const std::string& name) const override { return request_.get_param_value(name); }
  bool has_param(const std::string& name) const override { return request_.has_param(name); }

 private:
  const httplib::Request& request_;
};

/// A cpp-httplib DataSink as a StreamSink.
class Sink : public StreamSink {
 public:
  explicit Sink(httplib::DataSink& sink) : sink_(sink) {}
  bool write(std::string_view data) override { return sink_.write(data.data(), data.size()); }
  void done() override { sink_.done(); }

 private:
  httplib::DataSink& sink_;
};

/// A cpp-httplib response as a ServerResponse. The access logger sees it const: only the const
/// members are reachable there.
class Response : public ServerResponse {
 public:
  explicit Response(httplib::Response& response) : response_(response) {}
  int status() const override { return response_.status; }
  void set_status(int status) override { response_.status = status; }
  std::size_t body_size() const override { return response_.body.size(); }
  void set_header(const std::string& name, const std::string& value) override { response_.set_header(name, value); }
  void set_content(const std::string& body, const std::string& content_type) override {
    response_.set_content(body, content_type);
  }
  void set_redirect(const std::string& location, int status) override { response_.set_redirect(location, status); }
  void set_stream(const std::string& content_type, StreamProvider provider, std::function<void()> on_end) override {
    response_.set_chunked_content_provider(
        content_type,
        [provider = std::move(provider)](std::size_t, httplib::DataSink& sink) {
          Sink adapter(sink);
          return provider(adapter);
        },
        [on_end = std::move(on_end)](bool) {
          if (on_end) on_end();
        });
  }

 private:
  httplib::Response& response_;
};

/// A request the gate holds in memory as cpp-httplib's stream: reads come from memory (the end of
/// the request reads as the end of the stream), writes go to the socket, each waiting at most the
/// write timeout for the socket to take more.
class GatedStream : public httplib::Stream {
 public:
  GatedStream(GatedRequest& request, std::chrono::milliseconds write_timeout)
      : request_(request), timeout_ms_(static_cast<int>(write_timeout.count())) {}
  bool is_readable() const override { return offset_ < request_.bytes().size(); }
  bool is_writable() const override { return wait_writable(); }
  ssize_t read(char* ptr, size_t size) override {
    const std::size_t n = std::min(size, request_.bytes().size() - offset_);
    std::memcpy(ptr, request_.bytes().data() + offset_, n);
    offset_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::send(request_.socket(), ptr + done, size - done, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!wait_writable()) return -1;
      } else {
        return -1;
      }
    }
    return static_cast<ssize_t>(done);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(false, ip, port); }
  socket_t socket() const override { return request_.socket(); }

 private:
  bool wait_writable() const {
    pollfd p{request_.socket(), POLLOUT, 0};
    return ::poll(&p, 1, timeout_ms_) > 0 && (p.revents & (POLLERR | POLLHUP)) == 0;
  }
  void address(bool peer, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t size = sizeof a;
    auto* sa = reinterpret_cast<sockaddr*>(&a);
    if ((peer ? ::getpeername(socket(), sa, &size) : ::getsockname(socket(), sa, &size)) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
      auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
      inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
      inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }

  GatedRequest& request_;
  int timeout_ms_;
  std::size_t offset_ = 0;
};

/// The task queue of a gated server: a socket the listening thread accepted goes straight to the
/// gate (process_and_close_socket below), whose own threads answer it.
class GateQueue : public httplib::TaskQueue {
 public:
  explicit GateQueue(ConnectionGate& gate) : gate_(gate) {}
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override { gate_.shutdown(); }

 private:
  ConnectionGate& gate_;
};

/// cpp-httplib's server with its connections handed to a ConnectionGate instead of one thread
/// each: the accepted socket arrives in process_and_close_socket, and each whole request is
/// answered by process_request over a GatedStream.
class GatedServer : public httplib::Server {
 public:
  explicit GatedServer(const HttpServerSettings& settings) : settings_(settings) {
    new_task_queue = [this] {
      gate_ = std::make_unique<ConnectionGate>(
          settings_, [this](GatedRequest& request) { return answer(request); },
          [this](const std::string& client, int status, const std::string& reason) {
            if (refusal_logger_) refusal_logger_(client, status, reason);
          });
      return new GateQueue(*gate_);
    };
  }
  ~GatedServer() override {
    if (gate_) gate_->shutdown();
  }
  void set_refusal_logger(RefusalLogger logger) { refusal_logger_ = std::move(logger); }
  /// Deepens the listen queue (cpp-httplib listens with a backlog of 5).
  void deepen_backlog() { ::listen(svr_sock_, 1024); }

 private:
  bool process_and_close_socket(socket_t sock) override {
    gate_->adopt(sock);
    return true;
  }
  bool answer(GatedRequest& request) {
    GatedStream stream(request, settings_.limits.write_timeout);
    bool closed = false;
    const bool written = process_request(stream, request.last(), closed, nullptr);
    return written && !closed;
  }

  HttpServerSettings settings_;
  RefusalLogger refusal_logger_;
  std::unique_ptr<ConnectionGate> gate_;
};

httplib::Server::Handler adapt(RouteHandler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    Request request(req);
    Response response(res);
    handler(request, response);
  };
}

/// ServerBackend over httplib::Server.
class HttplibServer : public HttpServerBackend {
 public:
  explicit HttplibServer(const HttpServerSettings& settings);
  void get(const std::string& pattern, RouteHandler handler) override {
    server_.Get(pattern, adapt(std::move(handler)));
  }
  void post(const std::string& pattern, RouteHandler handler) override {
    server_.Post(pattern, adapt(std::move(handler)));
  }
  void set_pre_routing(PreRoutingHandler handler) override;
  void set_access_logger(AccessLogger logger) override;
  void set_error_handler(RouteHandler handler) override { server_.set_error_handler(adapt(std::move(handler))); }
  void set_refusal_logger(RefusalLogger logger) override { server_.set_refusal_logger(std::move(logger)); }
  int bind(const std::string& host, int port) override {
    const int bound = port == 0 ? server_.bind_to_any_port(host) : server_.bind_to_port(host, port) ? port : -1;
    if (bound > 0) server_.deepen_backlog();
    return bound;
  }
  void listen_after_bind() override { server_.listen_after_bind(); }
  bool is_running() const override { return server_.is_running(); }
  void stop() override { server_.stop(); }

 private:
  GatedServer server_;
};

HttplibServer::HttplibServer(const HttpServerSettings& settings) : server_(settings) {
  server_.set_payload_max_length(settings.max_body_bytes);
  if (settings.send_buffer_bytes > 0) {
    const int bytes = settings.send_buffer_bytes;
    // Replaces httplib's default options, so SO_REUSEADDR is set here too.
    server_.set_socket_options([bytes](int sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      ::setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
    });
  }
}

void HttplibServer::set_pre_routing(PreRoutingHandler handler) {
  server_.set_pre_routing_handler([handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    Request request(req);
    Response response(res);
    return handler(request, response) ? httplib::Server::HandlerResponse::Handled
                                      : httplib::Server::HandlerResponse::Unhandled;
  });
}

void HttplibServer::set_access_logger(AccessLogger logger) {
  server_.set_logger([logger = std::move(logger)](const httplib::Request& req, const httplib::Response& res) {
    Request request(req);
    const Response response(const_cast<httplib::Response&>(res));
    logger(request, response);
  });
}

}  // namespace

std::unique_ptr<HttpServerBackend> make_httplib_server(const HttpServerSettings& settings) {
  return std::make_unique<HttplibServer>(settings);
}

}  // namespace attractor
