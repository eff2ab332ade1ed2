// `attractor run` end to end: a missing API key stops the run with exit 3 and names the variable
// before any stage runs; `--backend openai` against the fake provider (OPENAI_BASE_URL) runs and
// prints the token summary; an unknown --backend is a usage error.

#include <filesystem>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using Ran = testing::BinaryRun;
using testing::run_binary;

const char* kGraph = R"(digraph Review { graph [goal="Review"]
  start [shape=Mdiamond]; done [shape=Msquare];
  plan [prompt="Plan the work"]
  review [prompt="Review the work", llm_model="claude-sonnet-4-5"]
  start -> plan -> review -> done
})";

TEST(CliBackendSelectionTest, MissingKeyExitsThreeNamingTheVariableBeforeAnyStage) {
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kGraph);
  Ran r = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("run"), "-q"}, {}, dir);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("attractor: ANTHROPIC_API_KEY is not set"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[nodes: review]"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.sub("run")));

  Ran openai = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("run2"), "-q", "--backend", "openai"},
                          {{"ANTHROPIC_API_KEY", "sk-ant"}}, dir);
  EXPECT_EQ(openai.code, 3) << openai.err;
  EXPECT_NE(openai.err.find("attractor: OPENAI_API_KEY is not set"), std::string::npos) << openai.err;
  EXPECT_NE(openai.err.find("[nodes: plan]"), std::string::npos) << openai.err;

  Ran simulated = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("run3"), "-q", "--simulate"}, {}, dir);
  EXPECT_EQ(simulated.code, 0) << simulated.err;
}

TEST(CliBackendSelectionTest, BackendOptionRunsAgainstACompatibleServerAndSumsTokens) {
  testing::FakeLlmServer server;
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kGraph);
  Ran r = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("run"), "--backend", "openai"},
                     {{"OPENAI_BASE_URL", server.url() + "/v1"}, {"ANTHROPIC_BASE_URL", server.url()}}, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("tokens: 22 input, 14 output (2 requests in 2 stages)"), std::string::npos) << r.err;
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].body["model"], "gpt-4o-mini");
  EXPECT_EQ(requests[1].path, "/v1/messages");
  nlohmann::json status = nlohmann::json::parse(read_text_file(dir.sub("run/plan/status.json")));
  EXPECT_EQ(status["backend"], "openai");
  EXPECT_EQ(status["usage"]["output_tokens"], 7);
}

TEST(CliBackendSelectionTest, UnknownBackendIsAUsageError) {
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kGraph);
  Ran r = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("run"), "--backend", "mistral"}, {}, dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown --backend 'mistral'"), std::string::npos) << r.err;
  Ran both = run_binary({"run", dir.sub("g.dot"), "--simulate", "--backend", "openai"}, {}, dir);
  EXPECT_EQ(both.code, 2);
}

}  // namespace
}  // namespace attractor
