// The server against hostile clients (docs/server.md section 4, docs/hardening.md): hundreds of
// idle connections, slow request heads, event streams beyond the limit, readers that never read,
// oversized heads and bodies, POSTs without a body, huge validation answers, and large runs in the
// listing and the graph. Every case talks to the real server over loopback with raw sockets and
// prints what it measured as `[hardening] ...` lines.

#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/raw_http.h"
#include "support/server_test_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Enough descriptors for both ends of hundreds of connections.
void raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 4096) {
    limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, 4096);
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

std::string request(const TestServer& server, const std::string& method, const std::string& path,
                    const std::string& extra = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: " + server.host() + "\r\nAuthorization: Bearer " + server.token() +
         "\r\n" + extra + "\r\n";
}

struct Probe {
  int status = 0;
  double ms = 0;
};

/// GET /health on a new connection: its status and how long the answer took.
Probe probe_health(const TestServer& server) {
  const auto start = Clock::now();
  RawConnection c(server.port());
  c.send(request(server, "GET", "/health"));
  const std::string response = c.receive_response(milliseconds(5000));
  return {raw_status(response), ms_since(start)};
}

/// Seven probes (as the campaign sent): each must answer 200 within a second.
void expect_health_answers_fast(const TestServer& server, const std::string& while_what) {
  double worst = 0;
  for (int i = 0; i < 7; ++i) {
    const Probe p = probe_health(server);
    EXPECT_EQ(p.status, 200) << while_what;
    EXPECT_LT(p.ms, 1000) << while_what;
    worst = std::max(worst, p.ms);
  }
  std::printf("[hardening] %s: 7 of 7 /health probes answered, slowest %.1f ms\n", while_what.c_str(), worst);
}

std::vector<std::unique_ptr<RawConnection>> open_connections(int port, int count) {
  std::vector<std::unique_ptr<RawConnection>> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(std::make_unique<RawConnection>(port));
    EXPECT_TRUE(out.back()->connected()) << "connection " << i;
  }
  return out;
}

int count_closed(std::vector<std::unique_ptr<RawConnection>>& connections) {
  int closed = 0;
  for (auto& c : connections) closed += c->closed_by_peer(milliseconds(0)) ? 1 : 0;
  return closed;
}

TEST(ServerHardeningTest, ThreeHundredIdleConnectionsLeaveHealthFast) {
  raise_descriptor_limit();
  TestServer server;
  auto idle = open_connections(server.port(), 300);
  std::this_thread::sleep_for(milliseconds(200));  // the server has accepted them all
  expect_health_answers_fast(server, "300 idle connections");
  const int closed = count_closed(idle);
  EXPECT_GE(closed, 300 - 256) << "beyond 256 per client the oldest idle ones make room";
  std::printf("[hardening] 300 idle connections: %d closed to make room (limit 256 per client)\n", closed);
}

TEST(ServerHardeningTest, IdleConnectionsAreClosedAfterTheIdleTimeout) {
  HttpOptions http;
  http.limits.idle_timeout = milliseconds(200);
  TestServer server(1, kTestToken, {}, http);
  RawConnection idle(server.port());
  const auto start = Clock::now();
  EXPECT_TRUE(idle.closed_by_peer(milliseconds(2000)));
  std::printf("[hardening] an idle connection was closed after %.0f ms (idle timeout 200 ms)\n", ms_since(start));
}

TEST(ServerHardeningTest, SlowRequestHeadsGet408AndLeaveHealthFast) {
  raise_descriptor_limit();
  HttpOptions http;
  http.limits.request_timeout = milliseconds(400);
  TestServer server(1, kTestToken, {}, http);
  auto slow = open_connections(server.port(), 100);
  for (auto& c : slow) c->send("GET /health HTTP/1.1\r\nHost: " + server.host() + "\r\nX-Slow: ");
  expect_health_answers_fast(server, "100 connections sending their heads slowly");
  int timed_out = 0;
  for (auto& c : slow) {
    const std::string response = c->receive_response(milliseconds(3000));
    timed_out += raw_status(response) == 408 ? 1 : 0;
  }
  EXPECT_EQ(timed_out, 100);
  std::printf("[hardening] 100 slow heads: %d answered 408 after the 400 ms request deadline\n", timed_out);
}

TEST(ServerHardeningTest, TwoHundredEventStreamsGetAtMostTheLimitAndHealthStaysFast) {
  raise_descriptor_limit();
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  auto streams = open_connections(server.port(), 200);
  for (auto& c : streams) c->send(request(server, "GET", "/pipelines/" + id + "/events"));
  int ok = 0;
  int busy = 0;
  for (auto& c : streams) {
    const int status = raw_status(c->receive(milliseconds(3000), 12));
    ok += status == 200 ? 1 : 0;
    busy += status == 503 ? 1 : 0;
  }
  EXPECT_EQ(ok, 64);
  EXPECT_EQ(busy, 136);
  expect_health_answers_fast(server, "64 open event streams and 136 refused");
  std::printf("[hardening] 200 event streams: %d streaming, %d answered 503\n", ok, busy);
}

TEST(ServerHardeningTest, ReadersThatNeverReadAreCutOffAfterTheWriteTimeout) {
  raise_descriptor_limit();
  HttpOptions http;
  http.send_buffer_bytes = 4096;
  http.limits.write_timeout = milliseconds(300);
  TestServer server(1, kTestToken, {}, http);
  std::vector<std::unique_ptr<RawConnection>> readers;
  std::string requests;
  for (int i = 0; i < 10; ++i) requests += request(server, "GET", "/app.js");
  for (int i = 0; i < 50; ++i) {
    readers.push_back(std::make_unique<RawConnection>(server.port(), 4096));
    readers.back()->send(requests);  // ten pages of 27 KB each, and not one byte read
  }
  expect_health_answers_fast(server, "50 readers that never read");
  std::this_thread::sleep_for(milliseconds(600));
  std::size_t most = 0;
  int cut = 0;
  for (auto& r : readers) {
    const std::string got = r->receive(milliseconds(2000), 1 << 22);
    most = std::max(most, got.size());
    cut += got.size() < 10 * 27000 ? 1 : 0;
  }
  EXPECT_EQ(cut, 50) << "each was cut off before its ten answers";
  std::printf("[hardening] 50 slow readers: %d cut off by the 300 ms write timeout, at most %zu bytes sent to one\n",
              cut, most);
}

TEST(ServerHardeningTest, WhenEveryConnectionOfAClientIsBusyTheNextGets503) {
  HttpOptions http;
  http.limits.max_connections_per_client = 8;
  TestServer server(1, kTestToken, {}, http);
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  auto streams = open_connections(server.port(), 8);
  for (auto& c : streams) {
    c->send(request(server, "GET", "/pipelines/" + id + "/events"));
    ASSERT_EQ(raw_status(c->receive(milliseconds(3000), 12)), 200);
  }
  const std::string refused = RawConnection(server.port()).receive_response(milliseconds(2000));
  EXPECT_EQ(raw_status(refused), 503);
  EXPECT_NE(raw_body(refused).find("too many connections"), std::string::npos) << refused;
  streams.pop_back();
  EXPECT_TRUE(eventually([&] { return probe_health(server).status == 200; }, 5)) << "a closed stream frees its place";
}

TEST(ServerHardeningTest, AHundredKilobyteHeaderIsAnswered431) {
  TestServer server;
  RawConnection c(server.port());
  c.send(request(server, "GET", "/health", "X-Big: " + std::string(100 << 10, 'x') + "\r\n"));
  const std::string response = c.receive_response(milliseconds(3000));
  EXPECT_EQ(raw_status(response), 431) << response.substr(0, 200);
  EXPECT_EQ(json::parse(raw_body(response))["error"], "the request line and headers are larger than 32768 bytes");
}

TEST(ServerHardeningTest, APostWithoutABodyIsToldWhatToSend) {
  TestServer server;
  for (const char* path : {"/pipelines", "/validate"}) {
    RawConnection c(server.port());
    const auto start = Clock::now();
    c.send(request(server, "POST", path));  // what `curl -XPOST` sends: no Content-Length, no body
    const std::string response = c.receive_response(milliseconds(3000));
    EXPECT_LT(ms_since(start), 1000) << path;
    EXPECT_EQ(raw_status(response), 400) << path;
    EXPECT_EQ(json::parse(raw_body(response))["error"],
              "the request body is empty: send a JSON object (Content-Type: application/json)")
        << path;
  }
  for (const char* path : {"/pipelines/no-such-run/cancel", "/pipelines/no-such-run/resume"}) {
    RawConnection c(server.port());
    c.send(request(server, "POST", path));  // endpoints that take no body: the id decides
    const std::string response = c.receive_response(milliseconds(3000));
    EXPECT_EQ(raw_status(response), 404) << path;
    EXPECT_NE(json::parse(raw_body(response))["error"].get<std::string>().find("no-such-run"), std::string::npos);
  }
  RawConnection chunked(server.port());
  chunked.send(request(server, "POST", "/validate", "Transfer-Encoding: chunked\r\n") + "2\r\n{}\r\n0\r\n\r\n");
  EXPECT_EQ(raw_status(chunked.receive_response(milliseconds(3000))), 411);
}

TEST(ServerHardeningTest, ABodyOverTheLimitIs413BeforeItIsRead) {
  TestServer server;
  RawConnection c(server.port());
  c.send(request(server, "POST", "/validate", "Content-Type: application/json\r\nContent-Length: 3145728\r\n"));
  const std::string response = c.receive_response(milliseconds(3000));
  EXPECT_EQ(raw_status(response), 413);
  EXPECT_EQ(json::parse(raw_body(response))["error"], "the request body is 3145728 bytes; the limit is 2097152");
}

TEST(ServerHardeningTest, AValidateAnswerHoldsAtMostTwentyDiagnosticsOfARule) {
  TestServer server;
  std::string attributes;
  for (int i = 0; i < 100000; ++i) attributes += "a=1,";
  const std::string dot = "digraph G { start [shape=Mdiamond] exit [shape=Msquare] start -> exit\n w [" + attributes +
                          "a=1] }";
  auto res = server.post("/validate", {{"dot", dot}});
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_LT(res->body.size(), 64u << 10);
  const json list = json::parse(res->body);
  std::size_t duplicates = 0;
  json left_out;
  for (const json& d : list) {
    if (d["rule"] == "duplicate_attribute") ++duplicates;
    if (d["rule"] == "diagnostics_left_out" && d["of_rule"] == "duplicate_attribute") left_out = d;
  }
  EXPECT_EQ(duplicates, 20u);
  ASSERT_TRUE(left_out.is_object()) << res->body.substr(0, 500);
  EXPECT_EQ(left_out["left_out"], 100000 - 20);
  std::printf("[hardening] /validate of %zu bytes with 100000 duplicate attributes: %zu bytes answered\n", dot.size(),
              res->body.size());
}

TEST(ServerHardeningTest, TheListingDoesNotReadTheCheckpointsOfRunningRuns) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  const fs::path checkpoint = fs::path(server.logs_root()) / id / "checkpoint.json";
  const std::string saved = [&] {
    std::ifstream in(checkpoint);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  std::ofstream(checkpoint, std::ios::trunc) << "{ not a checkpoint the listing could parse";
  const auto start = Clock::now();
  auto res = server.get("/pipelines");
  const double ms = ms_since(start);
  std::ofstream(checkpoint, std::ios::trunc) << saved;
  ASSERT_EQ(res->status, 200);
  const json list = json::parse(res->body);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["status"], "running");
  EXPECT_TRUE(list[0]["error"].is_null()) << list[0].dump();
  EXPECT_FALSE(list[0].contains("completed_nodes")) << "the list leaves them to GET /pipelines/{id}";
  std::printf("[hardening] GET /pipelines with a running run: %.1f ms, its checkpoint not read\n", ms);
}

TEST(ServerHardeningTest, TheGraphOfAPipelineTooLargeToDrawIsRefusedWithItsReason) {
  TestServer server;
  std::string dot =
      "digraph Big { start [shape=Mdiamond] exit [shape=Msquare] approve [shape=hexagon, label=\"Go?\"]\n"
      "start -> approve\napprove -> n0 [label=\"[G] Go\"]\n";
  for (int i = 0; i < 3000; ++i) {
    dot += fmt::format("n{} [shape=box, llm_provider=simulate, prompt=\"p\"]\n", i);
    dot += fmt::format("n{} -> {}\n", i, i + 1 < 3000 ? fmt::format("n{}", i + 1) : "exit");
  }
  dot += "}\n";
  const std::string id = server.start({{"dot", dot}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  const auto start = Clock::now();
  auto res = server.get("/pipelines/" + id + "/graph");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 422);
  EXPECT_EQ(json::parse(res->body)["error"],
            "the pipeline has 3003 nodes; the page draws pipelines of up to 2000 nodes (GET /pipelines/{id} tells "
            "where the run stands)");
  std::printf("[hardening] /graph of a 3003-node run: %d in %.0f ms\n", res->status, ms_since(start));
}

}  // namespace
}  // namespace attractor::testing
