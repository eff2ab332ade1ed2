#include "http/httplib/httplib_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <utility>

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
    response_.set_content(body, content_type.c_str());
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
  void get(const std::string& pattern, RouteHandler handler) override { server_.Get(pattern, adapt(std::move(handler))); }
  void post(const std::string& pattern, RouteHandler handler) override {
    server_.Post(pattern, adapt(std::move(handler)));
  }
  void set_pre_routing(PreRoutingHandler handler) override;
  void set_access_logger(AccessLogger logger) override;
  void set_error_handler(RouteHandler handler) override { server_.set_error_handler(adapt(std::move(handler))); }
  int bind(const std::string& host, int port) override {
    if (port == 0) return server_.bind_to_any_port(host);
    return server_.bind_to_port(host, port) ? port : -1;
  }
  void listen_after_bind() override { server_.listen_after_bind(); }
  bool is_running() const override { return server_.is_running(); }
  void stop() override { server_.stop(); }

 private:
  httplib::Server server_;
};

HttplibServer::HttplibServer(const HttpServerSettings& settings) {
  const std::size_t threads = settings.threads;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
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
