// Transport retries of provider calls (handlers/llm/transport_retry.h): through the engine against
// the in-process fake provider (a FakeClock records the waits, jitter is fixed at factor 1.0),
// plus the policy's jitter bounds, cancellation and the request deadline with a scripted
// transport.

#include <random>

#include <gtest/gtest.h>

#include "handlers/llm/openai_backend.h"
#include "handlers/llm/transport_retry.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using testing::FakeLlmServer;
using testing::LlmRun;
using testing::load_graph;

/// One LLM stage without `max_retries`: only transport retries can save it.
const char* kOneStage = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    write [llm_model="gpt-4o", prompt="Write it"]; start -> write -> done })";

std::shared_ptr<RoutingBackend> router_for(const FakeLlmServer& server) {
  return std::make_shared<RoutingBackend>(
      testing::config_with_env({{"OPENAI_BASE_URL", server.url()}, {"OPENAI_API_KEY", "sk-test"}}));
}

TEST(TransportRetryTest, ServerErrorThenSuccessSucceedsWithTwoRequests) {
  FakeLlmServer server;
  server.push_error(500, "The server had an error");
  LlmRun run;
  RunResult result = run.run(load_graph(kOneStage), router_for(server));
  EXPECT_EQ(result.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(run.clock.sleeps(), std::vector<std::int64_t>({1000}));
  EXPECT_TRUE(run.events_named("StageRetrying").empty());  // the stage itself ran once
  EXPECT_EQ(run.status("write")["outcome"], "success");
}

TEST(TransportRetryTest, RetryAfterReplacesTheBackoff) {
  FakeLlmServer server;
  server.push_error(429, "Rate limit reached", {{"Retry-After", "2"}});
  LlmRun run;
  RunResult result = run.run(load_graph(kOneStage), router_for(server));
  EXPECT_EQ(result.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(run.clock.sleeps(), std::vector<std::int64_t>({2000}));
}

TEST(TransportRetryTest, RetryAfterBeyondTheMaxDelayFailsAtOnceNamingIt) {
  FakeLlmServer server;
  server.push_error(429, "quota", {{"Retry-After", "120"}});
  LlmRun run;
  RunResult result = run.run(load_graph(kOneStage), router_for(server));
  EXPECT_EQ(result.outcome.status, StageStatus::kFail);
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(run.clock.sleeps().empty());
  EXPECT_EQ(run.status("write")["failure_reason"],
            "openai: HTTP 429: quota (Retry-After 120s is longer than the 60s retry limit; not retried)");
}

TEST(TransportRetryTest, UnauthorizedIsNotRetried) {
  FakeLlmServer server;
  server.push_error(401, "Incorrect API key provided");
  LlmRun run;
  RunResult result = run.run(load_graph(kOneStage), router_for(server));
  EXPECT_EQ(result.outcome.status, StageStatus::kFail);
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(run.clock.sleeps().empty());
  EXPECT_EQ(run.status("write")["failure_reason"], "openai: HTTP 401: Incorrect API key provided");
}

TEST(TransportRetryTest, ThreeServerErrorsFailAfterThreeRequestsWithTheProvidersMessage) {
  FakeLlmServer server;
  for (int i = 0; i < 3; ++i) server.push_error(500, "The server had an error " + std::to_string(i + 1));
  LlmRun run;
  RunResult result = run.run(load_graph(kOneStage), router_for(server));
  EXPECT_EQ(result.outcome.status, StageStatus::kFail);
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(run.clock.sleeps(), std::vector<std::int64_t>({1000, 2000}));
  EXPECT_EQ(run.status("write")["failure_reason"], "openai: HTTP 500: The server had an error 3");
}

TEST(TransportRetryTest, MaxRetriesComesFromTheEnvironment) {
  FakeLlmServer server;
  server.push_error(500, "boom");
  LlmRun run;
  auto router = std::make_shared<RoutingBackend>(testing::config_with_env(
      {{"OPENAI_BASE_URL", server.url()}, {"OPENAI_API_KEY", "sk-test"}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}}));
  EXPECT_EQ(run.run(load_graph(kOneStage), router).outcome.status, StageStatus::kFail);
  EXPECT_EQ(server.requests().size(), 1u);

  RoutingBackend bad(testing::config_with_env({{"OPENAI_API_KEY", "sk-test"}, {"ATTRACTOR_LLM_MAX_RETRIES", "two"}}));
  EXPECT_EQ(
      bad.check(load_graph(kOneStage), builtin_handler_catalog()),
      std::vector<std::string>({"ATTRACTOR_LLM_MAX_RETRIES='two' is not a whole number from 0 to 100 [nodes: write]"}));
}

TEST(TransportRetryPolicyTest, JitterStaysWithinHalfAndOneAndAHalfOfTheBackoff) {
  TransportRetryPolicy policy;
  auto engine = std::make_shared<std::mt19937_64>(42);
  UniformRandom random = [engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
  const std::int64_t base[] = {1000, 2000, 4000, 8000};
  for (int retry = 0; retry <= 3; ++retry) {
    std::int64_t low = base[retry], high = 0;
    for (int i = 0; i < 1000; ++i) {
      std::int64_t d = policy.backoff_ms(retry, random);
      EXPECT_GE(d, base[retry] / 2) << retry;
      EXPECT_LE(d, base[retry] * 3 / 2) << retry;
      low = std::min(low, d);
      high = std::max(high, d);
    }
    EXPECT_LT(low, base[retry] * 6 / 10) << "jitter reaches near the low end";
    EXPECT_GT(high, base[retry] * 14 / 10) << "jitter reaches near the high end";
  }
  EXPECT_EQ(policy.backoff_ms(0, [] { return 0.0; }), 500);
  EXPECT_EQ(policy.backoff_ms(10, [] { return 0.5; }), 60000);  // capped before the jitter
  policy.jitter = false;
  EXPECT_EQ(policy.backoff_ms(2, random), 4000);
}

/// Answers every POST with `status` and counts the calls; `on_post` runs first.
class ScriptedTransport : public HttpTransport {
 public:
  explicit ScriptedTransport(int status) : status_(status) {}
  HttpResponse post(const HttpRequest& request) override {
    ++calls;
    timeouts.push_back(request.timeout_ms.value_or(-1));
    if (on_post) on_post();
    HttpResponse r;
    r.status = status_;
    r.body = R"({"error": {"message": "boom"}})";
    return r;
  }
  int calls = 0;
  std::vector<std::int64_t> timeouts;
  std::function<void()> on_post;

 private:
  int status_;
};

TEST(TransportRetryPolicyTest, CancellationStopsRetrying) {
  ScriptedTransport transport(500);
  FakeClock clock;
  HttpRequest request;
  request.url = "http://example.invalid/v1/chat/completions";
  transport.on_post = [&] { request.cancel.cancel(); };
  EXPECT_THROW(post_with_retries(transport, request, "openai", {}, clock, {}), StageError);
  EXPECT_EQ(transport.calls, 1);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST(TransportRetryPolicyTest, NoWaitPastTheRequestDeadline) {
  ScriptedTransport transport(503);
  FakeClock clock;
  HttpRequest request;
  request.url = "http://example.invalid/v1/chat/completions";
  request.timeout_ms = 2500;  // room for the 1 s wait, not for the 2 s one after it
  EXPECT_THROW(post_with_retries(transport, request, "openai", {}, clock, [] { return 0.5; }), StageError);
  EXPECT_EQ(transport.calls, 2);
  EXPECT_EQ(clock.sleeps(), std::vector<std::int64_t>({1000}));
  EXPECT_EQ(transport.timeouts, std::vector<std::int64_t>({2500, 1500}));  // each attempt gets what is left
}

/// Fails every POST the way HttplibTransport does in a process without the HTTP module.
class ModulelessTransport : public HttpTransport {
 public:
  HttpResponse post(const HttpRequest&) override {
    ++calls;
    throw TransportError(TransportError::Kind::kUnavailable, "the HTTP module libattractor_http.so is missing");
  }
  int calls = 0;
};

TEST(TransportRetryPolicyTest, AMissingHttpModuleIsTerminalAndNotRetried) {
  ModulelessTransport transport;
  FakeClock clock;
  HttpRequest request;
  request.url = "http://example.invalid/v1/chat/completions";
  try {
    post_with_retries(transport, request, "openai", {}, clock, {});
    FAIL() << "no exception";
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    EXPECT_STREQ(e.what(), "openai: the HTTP module libattractor_http.so is missing");
  }
  EXPECT_EQ(transport.calls, 1);
  EXPECT_TRUE(clock.sleeps().empty());
}

}  // namespace
}  // namespace attractor
