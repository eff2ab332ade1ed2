// Signs of life through the real binary: a stage waiting on a model or a command shows its
// elapsed time on the console (StageWaiting events, not under --quiet), and a model server that
// hangs is given up after the idle deadline with a message that says so (docs/llm.md §1.3).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"
#include "support/fake_llm_server.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

using testing::TempDir;

/// `attractor run GRAPH --backend openai` against `server`, with a 600ms idle deadline, no
/// transport retries and a StageWaiting every 150ms, plus `extra` arguments.
hardening::ProcessResult run_against(const testing::FakeLlmServer& server, const std::string& graph,
                                     const std::string& run_dir, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"run", graph, "--backend", "openai", "--logs-root", run_dir};
  args.insert(args.end(), extra.begin(), extra.end());
  return hardening::run_attractor(
      args, {.env = {"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + server.url(), "ATTRACTOR_LLM_IDLE_TIMEOUT=600ms",
                     "ATTRACTOR_LLM_MAX_RETRIES=0", "ATTRACTOR_WAITING_INTERVAL=150ms"}});
}

std::string one_llm_stage_graph(TempDir& dir) {
  std::string graph = dir.sub("plan.dot");
  write_text_file(graph, R"(digraph g {
    start [shape=Mdiamond]; done [shape=Msquare]
    plan [prompt="Plan the work"]
    start -> plan -> done
  })");
  return graph;
}

TEST(StageWaitingTest, AHungModelServerShowsWaitingLinesAndTheIdleDeadlineEndsTheRequest) {
  TempDir dir;
  testing::FakeLlmServer server;
  server.push_hang();
  const std::string run_dir = dir.sub("run");
  hardening::ProcessResult r = run_against(server, one_llm_stage_graph(dir), run_dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("  … plan waiting on the model ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("openai: nothing received from " + server.url() +
                       " for 600ms (idle deadline); the server may be hung (ATTRACTOR_LLM_IDLE_TIMEOUT sets how long "
                       "to wait, a node `timeout` replaces both deadlines)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(server.requests().size(), 1u);
  const std::string events = read_text_file(run_dir + "/events.jsonl");
  EXPECT_NE(events.find(R"("event":"StageWaiting")"), std::string::npos) << events;
  EXPECT_NE(events.find(R"("waiting_on":"model")"), std::string::npos) << events;
}

TEST(StageWaitingTest, ADeadlineVariableThatIsNoDurationRefusesTheRun) {
  TempDir dir;
  testing::FakeLlmServer server;
  hardening::ProcessResult r = hardening::run_attractor(
      {"run", one_llm_stage_graph(dir), "--backend", "openai", "--logs-root", dir.sub("run")},
      {.env = {"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + server.url(), "ATTRACTOR_LLM_IDLE_TIMEOUT=soon"}});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("ATTRACTOR_LLM_IDLE_TIMEOUT='soon' is not a positive duration such as 90s, 5m or 500ms"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(server.requests().empty());
}

TEST(StageWaitingTest, QuietShowsNoWaitingLine) {
  TempDir dir;
  testing::FakeLlmServer server;
  server.push_hang();
  hardening::ProcessResult r = run_against(server, one_llm_stage_graph(dir), dir.sub("run"), {"-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.find("waiting on"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(idle deadline)"), std::string::npos) << r.err;
}

TEST(StageWaitingTest, AToolStageShowsItWaitsOnItsCommand) {
  TempDir dir;
  std::string graph = dir.sub("tool.dot");
  write_text_file(graph, R"(digraph g {
    start [shape=Mdiamond]; done [shape=Msquare]
    work [shape=parallelogram, tool_command="sleep 0.5"]
    start -> work -> done
  })");
  hardening::ProcessResult r = hardening::run_attractor({"run", graph, "--logs-root", dir.sub("run")},
                                                        {.env = {"ATTRACTOR_WAITING_INTERVAL=100ms"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("  … work waiting on the command ("), std::string::npos) << r.err;
}

TEST(StageWaitingTest, ABadWaitingIntervalIsWarnedAboutAndIgnored) {
  TempDir dir;
  std::string graph = dir.sub("tool.dot");
  write_text_file(graph, R"(digraph g {
    start [shape=Mdiamond]; done [shape=Msquare]
    work [shape=parallelogram, tool_command="true"]
    start -> work -> done
  })");
  hardening::ProcessResult r = hardening::run_attractor({"run", graph, "--logs-root", dir.sub("run")},
                                                        {.env = {"ATTRACTOR_WAITING_INTERVAL=soon"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("attractor: warning: ATTRACTOR_WAITING_INTERVAL='soon' is not a duration such as 15s; using "
                       "the default\n"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace attractor
