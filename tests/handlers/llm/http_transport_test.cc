// The cpp-httplib transport: headers and body reach the server, a hung server is cut off by the
// request deadline or by cancellation within a bounded time, and no listener is a connection error.

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "handlers/llm/http_transport.h"
#include "support/fake_llm_server.h"

namespace attractor {
namespace {

using testing::FakeLlmServer;

std::int64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
}

TEST(HttpTransportTest, PostsHeadersAndBody) {
  FakeLlmServer server;
  server.push({429, R"({"error": {"message": "later"}})", "", {{"Retry-After", "2"}}, false});
  HttplibTransport transport;
  HttpRequest request;
  request.url = server.url() + "/v1/messages";
  request.headers = {{"X-Api-Key", "k"}};
  request.body = R"({"model": "m"})";
  HttpResponse response = transport.post(request);
  EXPECT_EQ(response.status, 429);
  EXPECT_EQ(response.header("Retry-After"), "2");
  EXPECT_EQ(response.body, R"({"error": {"message": "later"}})");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers["x-api-key"], "k");
  EXPECT_EQ(requests[0].headers["content-type"], "application/json");
  EXPECT_EQ(requests[0].body, nlohmann::json::parse(R"({"model": "m"})"));
}

TEST(HttpTransportTest, HungServerIsCutOffAtTheDeadline) {
  FakeLlmServer server;
  server.push_hang();
  HttplibTransport transport;
  HttpRequest request;
  request.url = server.url() + "/v1/chat/completions";
  request.body = "{}";
  request.timeout_ms = 300;
  auto started = std::chrono::steady_clock::now();
  try {
    transport.post(request);
    FAIL();
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportError::Kind::kTimeout);
    EXPECT_EQ(std::string(e.what()), "no response from " + server.url() + " within 300ms");
  }
  EXPECT_GE(elapsed_ms(started), 290);
  EXPECT_LT(elapsed_ms(started), 1500);
}

TEST(HttpTransportTest, CancellationStopsAHungRequestPromptly) {
  FakeLlmServer server;
  server.push_hang();
  HttplibTransport transport;
  HttpRequest request;
  request.url = server.url() + "/v1/chat/completions";
  request.body = "{}";
  CancelToken token = request.cancel;
  std::thread canceller([token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    token.cancel();
  });
  auto started = std::chrono::steady_clock::now();
  try {
    transport.post(request);
    ADD_FAILURE();
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportError::Kind::kCancelled);
  }
  canceller.join();
  EXPECT_LT(elapsed_ms(started), 1000);
}

TEST(HttpTransportTest, NoListenerIsAConnectionError) {
  HttplibTransport transport(2000);
  HttpRequest request;
  request.url = "http://127.0.0.1:1/v1/messages";
  try {
    transport.post(request);
    FAIL();
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportError::Kind::kConnection);
    EXPECT_STREQ(e.what(),
                 "request to http://127.0.0.1:1/v1/messages failed: cannot connect (connection refused, or the host "
                 "is unreachable)");
  }
}

TEST(HttpTransportTest, SplitUrl) {
  EXPECT_EQ(split_url("https://api.openai.com/v1/"),
            std::make_pair(std::string("https://api.openai.com"), std::string("/v1")));
  EXPECT_EQ(split_url("http://127.0.0.1:8080"), std::make_pair(std::string("http://127.0.0.1:8080"), std::string()));
}

}  // namespace
}  // namespace attractor
