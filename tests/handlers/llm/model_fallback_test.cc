// Model fallback chains through the real binary: the primary provider (an in-process fake OpenAI)
// answers 503 on every try, so the stage falls back to the next pair (a fake Anthropic) and
// status.json says who answered; a 401 from the primary is never passed on to a fallback.

#include <string>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using testing::BinaryRun;
using testing::run_binary;

const char* kGraph = R"(digraph Fallback { graph [goal="Ship"]
  start [shape=Mdiamond]; done [shape=Msquare];
  plan [prompt="Plan the work", llm_provider=openai, llm_model="gpt-4o",
        llm_fallbacks="anthropic:claude-sonnet-4-5, openai:gpt-4o-mini"]
  start -> plan -> done
})";

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text_file(path)); }

TEST(ModelFallbackTest, A503FromThePrimaryFallsBackToTheNextProvider) {
  testing::FakeLlmServer openai, anthropic;
  openai.push_error(503, "overloaded");
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kGraph);
  const std::string run = dir.sub("run");
  BinaryRun r = run_binary({"run", dir.sub("g.dot"), "--logs-root", run, "-q"},
                           {{"OPENAI_BASE_URL", openai.url() + "/v1"},
                            {"ANTHROPIC_BASE_URL", anthropic.url()},
                            {"ATTRACTOR_LLM_MAX_RETRIES", "0"}},
                           dir);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(openai.requests().size(), 1u);
  ASSERT_EQ(anthropic.requests().size(), 1u);
  EXPECT_EQ(anthropic.requests()[0].path, "/v1/messages");
  EXPECT_EQ(anthropic.requests()[0].body["model"], "claude-sonnet-4-5");
  nlohmann::json status = read_json(run + "/plan/status.json");
  EXPECT_EQ(status["backend"], "anthropic");
  EXPECT_EQ(status["fallback_from"], (nlohmann::json{"openai:gpt-4o"}));
  EXPECT_NE(read_text_file(run + "/events.jsonl").find("\"fallback_from\":[\"openai:gpt-4o\"]"), std::string::npos);
  EXPECT_NE(r.err.find("stage plan: openai:gpt-4o failed (openai: HTTP 503: overloaded); falling back to "
                       "anthropic:claude-sonnet-4-5"),
            std::string::npos)
      << r.err;
}

TEST(ModelFallbackTest, A401IsNotPassedOnAndEveryFallbackFailingNamesThemAll) {
  testing::FakeLlmServer openai, anthropic;
  openai.push_error(401, "Incorrect API key provided");
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kGraph);
  const std::vector<std::pair<std::string, std::string>> env = {{"OPENAI_BASE_URL", openai.url() + "/v1"},
                                                                {"ANTHROPIC_BASE_URL", anthropic.url()},
                                                                {"ATTRACTOR_LLM_MAX_RETRIES", "0"}};
  BinaryRun refused = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("a"), "-q"}, env, dir);
  EXPECT_EQ(refused.code, 1);
  EXPECT_TRUE(anthropic.requests().empty());
  EXPECT_NE(refused.err.find("openai: HTTP 401: Incorrect API key provided"), std::string::npos) << refused.err;

  for (int i = 0; i < 3; ++i) openai.push_error(503, "overloaded");
  for (int i = 0; i < 3; ++i) anthropic.push_error(529, "overloaded too");
  BinaryRun exhausted = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("b"), "-q"}, env, dir);
  EXPECT_EQ(exhausted.code, 1);
  EXPECT_NE(exhausted.err.find("openai: HTTP 503: overloaded (fallbacks tried: openai:gpt-4o, "
                               "anthropic:claude-sonnet-4-5, openai:gpt-4o-mini)"),
            std::string::npos)
      << exhausted.err;
}

TEST(ModelFallbackTest, AMalformedChainIsALintError) {
  testing::ScratchDir dir;
  std::string text = kGraph;
  text.replace(text.find("anthropic:claude"), 16, "anthropic claude");
  write_text_file(dir.sub("g.dot"), text);
  BinaryRun r = run_binary({"validate", dir.sub("g.dot")}, {}, dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("error: [llm_fallbacks] llm_fallbacks entry 'anthropic claude-sonnet-4-5' is not "
                       "provider:model (providers: openai, anthropic, simulate, cli:<agent>)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace attractor
