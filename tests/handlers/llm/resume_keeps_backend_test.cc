// `attractor resume` continues a run the way it was started: a run begun with `--backend openai`
// against the in-process fake provider and killed after its first LLM stage is resumed without
// any option; the remaining stage still goes to the provider (never to the simulation) and the
// token summary counts the calls made before the interruption. Also: LLM stages that nothing
// routes are refused before the run starts even when API keys are set.

#include <filesystem>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using testing::BinaryRun;
using testing::run_binary;

const char* kTwoStages = R"(digraph Two { graph [goal="Ship"]
  start [shape=Mdiamond]; done [shape=Msquare];
  plan [prompt="Plan the work"]
  build [prompt="Build it"]
  start -> plan -> build -> done
})";

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text_file(path)); }

TEST(ResumeKeepsBackendTest, AResumedRunStillCallsTheProviderItStartedWith) {
  testing::FakeLlmServer server;
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kTwoStages);
  const std::vector<std::pair<std::string, std::string>> env = {{"OPENAI_BASE_URL", server.url() + "/v1"}};
  const std::string run = dir.sub("run");
  // Checkpoints: the initial one, after start, after plan: the process dies there.
  BinaryRun killed = run_binary({"kill", "3", "run", dir.sub("g.dot"), "--backend", "openai", "--logs-root", run, "-q"},
                                env, dir, ATTRACTOR_FAULT_BINARY_PATH);
  ASSERT_EQ(killed.code, -1) << killed.err;
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(read_json(run + "/manifest.json")["options"]["backend"], "openai");

  BinaryRun resumed = run_binary({"resume", run}, env, dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming as started: --backend openai (from manifest.json)\n"), std::string::npos)
      << resumed.err;
  ASSERT_EQ(server.requests().size(), 2u) << "the resumed stage must reach the provider";
  EXPECT_EQ(server.requests()[1].path, "/v1/chat/completions");
  EXPECT_EQ(read_json(run + "/build/status.json")["backend"], "openai");
  EXPECT_EQ(read_text_file(run + "/build/response.md").find("[Simulated]"), std::string::npos);
  EXPECT_EQ(resumed.err.find("(simulated)"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("tokens: 22 input, 14 output (2 requests in 2 stages)\n"), std::string::npos)
      << resumed.err;
}

TEST(ResumeKeepsBackendTest, AnOptionGivenAgainOverridesTheManifest) {
  testing::FakeLlmServer server;
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kTwoStages);
  const std::string run = dir.sub("run");
  BinaryRun killed = run_binary({"kill", "3", "run", dir.sub("g.dot"), "--backend", "openai", "--logs-root", run, "-q"},
                                {{"OPENAI_BASE_URL", server.url() + "/v1"}}, dir, ATTRACTOR_FAULT_BINARY_PATH);
  ASSERT_EQ(killed.code, -1) << killed.err;
  BinaryRun resumed = run_binary({"resume", run, "--simulate"}, {}, dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(resumed.err.find("resuming as started"), std::string::npos) << resumed.err;
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(read_json(run + "/build/status.json")["backend"], "simulation");
  EXPECT_NE(resumed.err.find("(simulated)"), std::string::npos) << resumed.err;
}

TEST(SimulationIsExplicitTest, LlmStagesWithoutABackendAreRefusedEvenWithKeysSet) {
  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), kTwoStages);
  BinaryRun r = run_binary({"run", dir.sub("g.dot"), "--logs-root", dir.sub("run")},
                           {{"OPENAI_API_KEY", "sk-test"}, {"ANTHROPIC_API_KEY", "sk-ant"}}, dir);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err,
            "attractor: no LLM backend chosen: pass --backend openai|anthropic|cli (or set llm_provider on the graph "
            "or the nodes, or an llm_model such as gpt-4o or claude-sonnet-4-5), or pass --simulate to run these "
            "stages with the simulation backend [nodes: plan, build]\n"
            "attractor: not run: LLM backend configuration is incomplete\n");
  EXPECT_FALSE(std::filesystem::exists(dir.sub("run")));

  for (std::vector<std::string> choice : {std::vector<std::string>{"--simulate"}, {"--backend", "simulate"}}) {
    std::vector<std::string> args = {"run", dir.sub("g.dot"), "--logs-root", dir.sub("run-" + choice.back())};
    args.insert(args.end(), choice.begin(), choice.end());
    BinaryRun simulated = run_binary(args, {}, dir);
    EXPECT_EQ(simulated.code, 0) << simulated.err;
    EXPECT_NE(simulated.err.find("plan                     success          "), std::string::npos) << simulated.err;
    EXPECT_NE(simulated.err.find("(simulated)\n  ✓ build"), std::string::npos) << simulated.err;
  }
}

}  // namespace
}  // namespace attractor
