#include "support/server_test_support.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace attractor::testing {

const char* const kTestToken = "0123456789abcdef0123456789abcdef";

const char* const kGateDot = R"(digraph Gate {
  start [shape=Mdiamond]
  work [shape=box, prompt="do the work", llm_provider=simulate]
  approve [shape=hexagon, label="Ship it?"]
  exit [shape=Msquare]
  start -> work -> approve
  approve -> exit [label="[A] Approve"]
  approve -> work [label="[R] Revise"]
}
)";

std::string holding_stage(const std::string& name) {
  return name +
         R"( [shape=parallelogram, tool_command="touch \"$ATTRACTOR_NODE_DIR/started\"; while [ ! -f \"$ATTRACTOR_NODE_DIR/go\" ]; do sleep 0.02; done"])";
}

const char* const kHoldDot = R"(digraph Hold {
  start [shape=Mdiamond]
  hold [shape=parallelogram, tool_command="touch \"$ATTRACTOR_NODE_DIR/started\"; while [ ! -f \"$ATTRACTOR_NODE_DIR/go\" ]; do sleep 0.02; done"]
  exit [shape=Msquare]
  start -> hold -> exit
}
)";

bool TestServer::wait_file(const std::string& id, const std::string& name, double seconds) const {
  return eventually([&] { return std::filesystem::exists(std::filesystem::path(logs_root_) / id / name); }, seconds);
}

void TestServer::release(const std::string& id) const {
  for (const auto& stage : std::filesystem::directory_iterator(std::filesystem::path(logs_root_) / id)) {
    if (stage.is_directory()) std::ofstream(stage.path() / "go") << "";
  }
}

bool has_ipv6_loopback() {
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

bool eventually(const std::function<bool()>& condition, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

TestServer::TestServer(std::size_t max_concurrent, std::string token, ServerConfig config, HttpOptions http) {
  logs_root_ = dir_.sub("runs");
  graphs_dir_ = dir_.sub("graphs");
  std::filesystem::create_directories(logs_root_);
  std::filesystem::create_directories(graphs_dir_);
  add_graph("gate.dot", kGateDot);
  config.logs_root = logs_root_;
  config.graphs_dir = graphs_dir_;
  config.max_concurrent = max_concurrent;
  runs_ = std::make_unique<RunRegistry>(config);
  http.port = 0;
  http.token = std::move(token);
  address_ = http.host;
  http.keepalive = std::chrono::milliseconds(200);
  http_ = std::make_unique<HttpServer>(*runs_, http);
  token_ = http_->access().token();
  std::string error;
  port_ = http_->bind(&error);
  EXPECT_GT(port_, 0) << error;
  thread_ = std::thread([this] { http_->serve(); });
}

TestServer::~TestServer() { stop(); }

void TestServer::stop() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
  if (runs_) runs_->shutdown();
}

void TestServer::add_graph(const std::string& name, const std::string& dot) {
  std::ofstream(std::filesystem::path(graphs_dir_) / name, std::ios::binary) << dot;
}

std::string TestServer::host() const {
  return (address_.find(':') != std::string::npos ? "[" + address_ + "]" : address_) + ":" + std::to_string(port_);
}

std::unique_ptr<httplib::Client> TestServer::anonymous() const {
  auto c = std::make_unique<httplib::Client>(address_, port_);
  c->set_read_timeout(30, 0);
  return c;
}

std::unique_ptr<httplib::Client> TestServer::client() const {
  auto c = anonymous();
  if (!token_.empty()) c->set_default_headers({{"Authorization", "Bearer " + token_}});
  return c;
}

namespace {

bool brings_credentials(const httplib::Headers& headers) {
  return headers.count("Authorization") > 0 || headers.count("Cookie") > 0;
}

}  // namespace

httplib::Result TestServer::get(const std::string& path, const httplib::Headers& headers) const {
  return (brings_credentials(headers) ? anonymous() : client())->Get(path, headers);
}

httplib::Result TestServer::post(const std::string& path, const nlohmann::json& body,
                                 const httplib::Headers& headers) const {
  return (brings_credentials(headers) ? anonymous() : client())->Post(path, headers, body.dump(), "application/json");
}

std::string TestServer::start(const nlohmann::json& body) const {
  auto res = post("/pipelines", body);
  EXPECT_TRUE(res);
  if (!res) return "";
  EXPECT_EQ(res->status, 201) << res->body;
  return nlohmann::json::parse(res->body).value("id", std::string());
}

bool TestServer::wait_status(const std::string& id, const std::string& status, double seconds) const {
  return eventually(
      [&] {
        auto res = get("/pipelines/" + id);
        return res && res->status == 200 && nlohmann::json::parse(res->body).value("status", "") == status;
      },
      seconds);
}

nlohmann::json TestServer::wait_question(const std::string& id, double seconds) const {
  nlohmann::json found;
  eventually(
      [&] {
        auto res = get("/pipelines/" + id + "/questions");
        if (!res || res->status != 200) return false;
        nlohmann::json list = nlohmann::json::parse(res->body);
        if (list.empty()) return false;
        found = list[0];
        return true;
      },
      seconds);
  return found;
}

}  // namespace attractor::testing
