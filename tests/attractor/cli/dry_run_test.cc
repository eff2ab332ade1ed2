// `attractor run --dry-run`: the plan a run would follow, resolved by the run's own rules (handler
// catalog, backend router, fidelity and thread resolution), with nothing called and no run
// directory created; refusals are the real run's.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::spit;

const std::string kDemo = std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/engine_demo.dot";
const std::string kSimple = std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot";

TEST(DryRunTest, PrintsEveryNodesHandlerBackendFidelityAndThreadAndRunsNothing) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult r = run_attractor({"run", kDemo, "--dry-run", "--simulate", "--logs-root", run});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "plan of engine_demo: 11 nodes (dry run: nothing was called, no run directory made)\n"
            "  start                start\n"
            "  prepare              tool\n"
            "                       commands: tool_command [sandbox none]\n"
            "  implement            codergen               simulate:simulation  fidelity compact  thread prepare\n"
            "  check                conditional\n"
            "  reviews              parallel\n"
            "  style                codergen               simulate:simulation  fidelity compact  thread reviews\n"
            "  security             codergen               simulate:simulation  fidelity compact  thread reviews\n"
            "  join                 parallel.fan_in\n"
            "  approve              wait.human\n"
            "  publish              tool\n"
            "                       commands: tool_command [sandbox none]\n"
            "  done                 exit\n"
            "budget: none\n"
            "workspace: in-place (" ATTRACTOR_SOURCE_DIR ")\n");
  EXPECT_EQ(r.err, "");
  EXPECT_FALSE(fs::exists(run));
}

TEST(DryRunTest, JsonNamesTheProviderModelFallbacksAndBudget) {
  ScratchDir dir;
  const std::string graph = dir.sub("g.dot");
  spit(graph, R"(digraph G { graph [max_cost=2]
    start [shape=Mdiamond]; done [shape=Msquare]
    plan [prompt="Plan", llm_model="claude-sonnet-4-5", llm_fallbacks="openai:gpt-4o", fidelity=full, thread_id=main]
    code [prompt="Code"]
    start -> plan -> code -> done
  })");
  const std::string prices = dir.sub("prices.json");
  spit(prices, R"({"*": {"input": 1, "output": 2}})");
  ProcessResult r = run_attractor({"run", graph, "--dry-run", "--json", "--backend", "openai", "--prices", prices,
                                   "--max-total-tokens", "900", "--logs-root", dir.sub("run")},
                                  {.env = {"OPENAI_API_KEY=k", "ANTHROPIC_API_KEY=k", "OPENAI_MODEL=gpt-4.1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json plan = nlohmann::json::parse(r.out);
  EXPECT_EQ(plan["budget"], (nlohmann::json{{"max_total_tokens", 900}, {"max_cost", 2.0}}));
  const nlohmann::json& stages = plan["stages"];
  ASSERT_EQ(stages.size(), 4u);
  EXPECT_EQ(stages[1]["id"], "plan");
  EXPECT_EQ(stages[1]["provider"], "anthropic");  // from the model's name
  EXPECT_EQ(stages[1]["model"], "claude-sonnet-4-5");
  EXPECT_EQ(stages[1]["fallbacks"], (nlohmann::json{"openai:gpt-4o"}));
  EXPECT_EQ(stages[1]["fidelity"], "full");
  EXPECT_EQ(stages[1]["thread_id"], "main");
  EXPECT_EQ(stages[2]["provider"], "openai");  // from --backend
  EXPECT_EQ(stages[2]["model"], "gpt-4.1");    // OPENAI_MODEL
  EXPECT_EQ(stages[2]["thread_id"], "plan");
  EXPECT_EQ(stages[2]["reached_from"], "plan");
  EXPECT_FALSE(fs::exists(dir.sub("run")));
}

TEST(DryRunTest, RefusesWhatARunWouldRefuse) {
  ScratchDir dir;
  ProcessResult unrouted = run_attractor({"run", kSimple, "--dry-run", "--logs-root", dir.sub("a")});
  EXPECT_EQ(unrouted.exit_code, 3);
  EXPECT_NE(unrouted.out.find("not run: no LLM backend chosen"), std::string::npos) << unrouted.out;
  const std::string bad = dir.sub("bad.dot");
  spit(bad, "digraph bad { a -> b }");
  EXPECT_EQ(run_attractor({"run", bad, "--dry-run", "--simulate"}).exit_code, 2);
  EXPECT_EQ(run_attractor({"run", kSimple, "--json", "--simulate"}).exit_code, 2);  // --json needs --dry-run
  EXPECT_FALSE(fs::exists(dir.sub("a")));
}

// Issue 36 point 10: without a backend the plan is still printed, each stage nothing would run
// says why, and the exit code is the real run's.
TEST(DryRunTest, WithoutABackendThePlanSaysWhichStagesWouldNotRunAndWhy) {
  ScratchDir dir;
  ProcessResult r = run_attractor({"run", kSimple, "--dry-run", "--logs-root", dir.sub("a")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const std::string why =
      "not run: no LLM backend chosen: pass --backend openai|anthropic|cli (or set llm_provider on the graph or the "
      "nodes, or an llm_model such as gpt-4o or claude-sonnet-4-5), or pass --simulate to run these stages with the "
      "simulation backend\n";
  EXPECT_EQ(r.out,
            "plan of Simple: 4 nodes (dry run: nothing was called, no run directory made)\n"
            "  start                start\n"
            "  run_tests            codergen               (no backend):(agent default)  fidelity compact  thread "
            "start\n"
            "                       " +
                why +
                "  report               codergen               (no backend):(agent default)  fidelity compact  thread "
                "run_tests\n"
                "                       " +
                why +
                "  exit                 exit\n"
                "budget: none\n"
                "the run would be refused (exit 3): a stage above has no backend that can run it\n"
                "workspace: in-place (" ATTRACTOR_SOURCE_DIR ")\n");
  ProcessResult json = run_attractor({"run", kSimple, "--dry-run", "--json", "--logs-root", dir.sub("a")});
  EXPECT_EQ(json.exit_code, 3) << json.err;
  nlohmann::json plan = nlohmann::json::parse(json.out);
  EXPECT_EQ(plan["refused"], true);
  EXPECT_EQ(plan["stages"][1]["not_run"], why.substr(9, why.size() - 10));
  EXPECT_TRUE(plan["stages"][0]["not_run"].is_null() || !plan["stages"][0].contains("not_run"));
  EXPECT_FALSE(fs::exists(dir.sub("a")));
}

}  // namespace
}  // namespace attractor
