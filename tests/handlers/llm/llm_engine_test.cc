// LLM backends through the engine with the fake provider: 429-then-200 retried after the
// provider's Retry-After (fake clock, no real sleeping), 401 failing once with the provider's
// message in status.json, a hung server cut off by the node timeout, usage per stage in
// status.json and events and summed in the final event, and `full` threads sending history.

#include <chrono>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using nlohmann::json;
using testing::FakeLlmServer;
using testing::LlmRun;
using testing::load_graph;

/// The router against `server`; `transport_retries` = 0 leaves every retry to the stage.
std::shared_ptr<RoutingBackend> router_for(const FakeLlmServer& server, int transport_retries = 2) {
  BackendConfig config = testing::config_with_env(
      {{"OPENAI_BASE_URL", server.url()}, {"OPENAI_API_KEY", "sk-test"}, {"ANTHROPIC_BASE_URL", server.url()}});
  config.transport_retry.max_retries = transport_retries;
  return std::make_shared<RoutingBackend>(config);
}

TEST(LlmEngineTest, RateLimitThenSuccessWaitsForRetryAfter) {
  FakeLlmServer server;
  server.push_error(429, "Rate limit reached for gpt-4o", {{"Retry-After", "3"}});
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    write [llm_model="gpt-4o", prompt="Write it", max_retries=2]; start -> write -> done })");
  LlmRun run;
  RunResult result = run.run(g, router_for(server, 0));
  EXPECT_EQ(result.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(run.clock.sleeps(), std::vector<std::int64_t>({3000}));  // backoff alone would be 200 ms
  auto retrying = run.events_named("StageRetrying");
  ASSERT_EQ(retrying.size(), 1u);
  EXPECT_EQ(retrying[0]["delay_ms"], 3000);
  auto failed = run.events_named("StageFailed");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0]["error"], "openai: HTTP 429: Rate limit reached for gpt-4o");
  EXPECT_EQ(failed[0]["will_retry"], true);
  json status = run.status("write");
  EXPECT_EQ(status["outcome"], "success");
  EXPECT_EQ(status["usage"], json::parse(R"({"input_tokens": 11, "output_tokens": 7, "requests": 1})"));
  EXPECT_EQ(status["backend"], "openai");
  EXPECT_EQ(status["model"], "gpt-4o");
}

TEST(LlmEngineTest, RetryAfterBeyondTheMaxDelayIsNotWaitedFor) {
  FakeLlmServer server;
  server.push_error(429, "quota", {{"Retry-After", "3600"}});
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    write [llm_model="gpt-4o", max_retries=2]; start -> write -> done })");
  LlmRun run;
  RunResult result = run.run(g, router_for(server));
  EXPECT_EQ(result.outcome.status, StageStatus::kFail);
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(run.clock.sleeps().empty());
  EXPECT_EQ(run.status("write")["retry_after_ms"], 3600000);
}

TEST(LlmEngineTest, UnauthorizedFailsOnceWithTheProvidersMessage) {
  FakeLlmServer server;
  server.push_error(401, "invalid x-api-key");
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    review [llm_model="claude-sonnet-4-5", max_retries=3]; start -> review -> done })");
  LlmRun run;
  RunResult result = run.run(g, router_for(server));
  EXPECT_EQ(result.outcome.status, StageStatus::kFail);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].path, "/v1/messages");
  json status = run.status("review");
  EXPECT_EQ(status["outcome"], "fail");
  EXPECT_EQ(status["failure_reason"], "anthropic: HTTP 401: invalid x-api-key");
  EXPECT_EQ(status["error_category"], "terminal");
  EXPECT_TRUE(run.clock.sleeps().empty());
}

TEST(LlmEngineTest, HungServerIsCutOffByTheNodeTimeout) {
  FakeLlmServer server;
  server.push_hang();
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    slow [llm_model="gpt-4o", timeout="1s", max_retries=0]; start -> slow -> done })");
  LlmRun run;
  auto started = std::chrono::steady_clock::now();
  RunResult result = run.run(g, router_for(server));
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.outcome.status, StageStatus::kFail);
  EXPECT_EQ(run.status("slow")["failure_reason"], "stage slow timed out after 1000ms");
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_LT(elapsed, std::chrono::milliseconds(2500));
}

TEST(LlmEngineTest, UsagePerStageAndSummedInTheFinalEvent) {
  FakeLlmServer server;
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    plan [llm_model="claude-sonnet-4-5"]; code [llm_model="gpt-4o"]; start -> plan -> code -> done })");
  LlmRun run;
  RunResult result = run.run(g, router_for(server));
  ASSERT_EQ(result.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(run.status("plan")["backend"], "anthropic");
  EXPECT_EQ(run.status("code")["backend"], "openai");
  auto usage = run.events_named("StageUsage");
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_EQ(usage[0]["name"], "plan");
  EXPECT_EQ(usage[0]["backend"], "anthropic");
  EXPECT_EQ(usage[0]["model"], "claude-sonnet-4-5");
  EXPECT_EQ(usage[0]["input_tokens"], 11);
  EXPECT_EQ(usage[1]["output_tokens"], 7);
  auto completed = run.events_named("PipelineCompleted");
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(
      completed[0]["usage"],
      json::parse(
          R"({"input_tokens": 22, "output_tokens": 14, "total_tokens": 36, "llm_requests": 2, "llm_stages": 2})"));
}

TEST(LlmEngineTest, FullThreadSendsEarlierMessagesAndFreshSessionsCarryThePreamble) {
  FakeLlmServer server;
  Graph g = load_graph(R"(digraph G { graph [goal="Ship the parser", default_fidelity="full"]
    start [shape=Mdiamond]; done [shape=Msquare];
    write  [llm_model="gpt-4o", prompt="Write the plan", thread_id="main"]
    review [llm_model="gpt-4o", prompt="Review the plan", thread_id="main"]
    report [llm_model="claude-sonnet-4-5", prompt="Summarize", fidelity="compact"]
    start -> write -> review -> report -> done })");
  LlmRun run;
  RunResult result = run.run(g, router_for(server));
  ASSERT_EQ(result.outcome.status, StageStatus::kSuccess);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  const json& first = requests[0].body["messages"];
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["content"], read_text_file(run.run_dir() + "/write/prompt.md"));
  json expected = json::array(
      {first[0], {{"role", "assistant"}, {"content", "reply 1"}}, {{"role", "user"}, {"content", "Review the plan"}}});
  EXPECT_EQ(requests[1].body["messages"], expected);
  EXPECT_EQ(run.status("review")["fidelity"], "full");
  EXPECT_EQ(run.status("review")["thread_id"], "main");

  // A compact stage starts a fresh session: one user message, preamble in front of the prompt.
  const json& fresh = requests[2].body["messages"];
  ASSERT_EQ(fresh.size(), 1u);
  std::string content = fresh[0]["content"];
  EXPECT_EQ(content, read_text_file(run.run_dir() + "/report/prompt.md"));
  ASSERT_GT(content.size(), std::string("Summarize").size());
  EXPECT_EQ(content.substr(content.size() - 9), "Summarize");
  EXPECT_EQ(content.find("Review the plan"), std::string::npos);
  EXPECT_GT(run.status("report")["preamble_tokens"].get<int>(), 0);
}

}  // namespace
}  // namespace attractor
