// What the LLM backends write to a run's run.log (docs/run-directory.md, 2.4): the provider's
// answer with its HTTP status and Retry-After, the engine's retry with the delay it waits, the
// backend each stage used (debug).

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "attractor/base/log.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using testing::FakeLlmServer;
using testing::LlmRun;
using testing::load_graph;

/// The lines of a run's run.log without their timestamps (`[info] message`).
std::vector<std::string> log_messages(const std::string& run_dir) {
  std::ifstream in(std::filesystem::path(run_dir) / "run.log");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line.substr(line.find(' ') + 1));
  return out;
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

/// Sets the console level for one test (a file follows it below info).
class ScopedLogLevel {
 public:
  explicit ScopedLogLevel(spdlog::level::level_enum level) : saved_(log_level()) { set_log_level(level); }
  ~ScopedLogLevel() { set_log_level(saved_); }

 private:
  spdlog::level::level_enum saved_;
};

TEST(LlmRunLogTest, RateLimitIsLoggedWithTheRetryAfterTheEngineWaitsFor) {
  FakeLlmServer server;
  server.push_error(429, "Rate limit reached for gpt-4o", {{"Retry-After", "3"}});
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    write [llm_model="gpt-4o", prompt="Write it", max_retries=2]; start -> write -> done })");
  LlmRun run;
  BackendConfig config = testing::config_with_env({{"OPENAI_BASE_URL", server.url()}, {"OPENAI_API_KEY", "sk-test"}});
  config.transport_retry.max_retries = 0;  // the stage retries
  ScopedLogLevel level(spdlog::level::off);
  ASSERT_EQ(run.run(g, std::make_shared<RoutingBackend>(config)).outcome.status, StageStatus::kSuccess);
  std::vector<std::string> lines = log_messages(run.run_dir());
  EXPECT_TRUE(has(lines, "[info] openai: POST " + server.url() +
                             "/v1/chat/completions answered HTTP 429 (retryable); Retry-After 3000ms"));
  EXPECT_TRUE(has(lines,
                  "[info] stage write attempt 1 of 3 failed in 0ms: openai: HTTP 429: Rate limit reached "
                  "for gpt-4o; retrying in 3000ms (Retry-After)"));
  EXPECT_TRUE(has(lines, "[info] stage write finished: success in 0ms"));
}

TEST(LlmRunLogTest, TransportRetriesAreLoggedAsWarnings) {
  FakeLlmServer server;
  server.push_error(500, "boom");
  server.push_error(503, "busy", {{"Retry-After", "1.5"}});
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    write [llm_model="gpt-4o", prompt="Write it"]; start -> write -> done })");
  LlmRun run;
  BackendConfig config = testing::config_with_env({{"OPENAI_BASE_URL", server.url()}, {"OPENAI_API_KEY", "sk-test"}});
  ScopedLogLevel level(spdlog::level::off);
  ASSERT_EQ(run.run(g, std::make_shared<RoutingBackend>(config)).outcome.status, StageStatus::kSuccess);
  std::vector<std::string> lines = log_messages(run.run_dir());
  EXPECT_TRUE(has(lines, "[warning] openai: HTTP 500: boom; retrying in 1s (attempt 2 of 3)"));
  EXPECT_TRUE(has(lines, "[warning] openai: HTTP 503: busy; retrying in 1.5s (attempt 3 of 3)"));
}

TEST(LlmRunLogTest, DebugNamesTheBackendOfEachStage) {
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    write [prompt="Write it"]; start -> write -> done })");
  LlmRun run;
  ScopedLogLevel level(spdlog::level::debug);
  BackendConfig config = testing::config_with_env({});
  config.default_provider = "simulate";
  ASSERT_EQ(run.run(g, std::make_shared<RoutingBackend>(config)).outcome.status, StageStatus::kSuccess);
  EXPECT_TRUE(has(log_messages(run.run_dir()), "[debug] stage write: LLM backend simulation"));
}

}  // namespace
}  // namespace attractor
