// Run budgets through the real binary, offline (the simulation reports token usage): a token
// budget stops the run before its next LLM stage with exit 4 and a valid checkpoint, a resume with
// a higher budget ends in the same state as a run without one, and a price table gives costs.

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor {
namespace {

using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;

const std::string kGraph = std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot";

nlohmann::json final_state(const std::string& run_dir) {
  nlohmann::json j = nlohmann::json::parse(slurp(run_dir + "/checkpoint.json"));
  for (const char* k : {"timestamp", "timestamp_ms", "run_id"}) j.erase(k);
  j["context"].erase("internal.run_id");
  return j;
}

TEST(BudgetTest, ATokenBudgetStopsBeforeTheNextLlmStageAndAResumeWithMoreFinishesTheSameRun) {
  ScratchDir dir;
  const std::string reference = dir.sub("reference");
  ASSERT_EQ(run_attractor({"run", kGraph, "--simulate", "-q", "--logs-root", reference}).exit_code, 0);

  const std::string run = dir.sub("run");
  ProcessResult stopped = run_attractor({"run", kGraph, "--simulate", "--logs-root", run, "--max-total-tokens", "50"});
  EXPECT_EQ(stopped.exit_code, 4);
  EXPECT_NE(stopped.err.find("tokens: 42 input, 10 output (1 request in 1 stage)\nstopped: token budget reached: 52 of "
                             "max_total_tokens=50 used before stage `report`; the checkpoint is intact: attractor "
                             "resume " +
                             run + " with a higher budget\n"),
            std::string::npos)
      << stopped.err;
  nlohmann::json cp = nlohmann::json::parse(slurp(run + "/checkpoint.json"));
  EXPECT_EQ(cp["state"], "running");
  EXPECT_EQ(cp["next_node"], "report");
  EXPECT_EQ(cp["completed_nodes"], (nlohmann::json{"start", "run_tests"}));
  EXPECT_NE(slurp(run + "/events.jsonl").find("\"event\":\"BudgetExhausted\""), std::string::npos);

  // The recorded budget applies again on a bare resume; a higher one lets the run finish.
  EXPECT_EQ(run_attractor({"resume", run, "-q"}).exit_code, 4);
  ProcessResult resumed = run_attractor({"resume", run, "-q", "--max-total-tokens", "500"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(final_state(run), final_state(reference));
}

TEST(BudgetTest, TheGraphAttributeSetsTheBudgetAndTheFlagOverridesIt) {
  ScratchDir dir;
  std::string text = slurp(kGraph);
  text.replace(text.find("graph [goal="), 12, "graph [max_total_tokens=50, goal=");
  const std::string graph = dir.sub("budgeted.dot");
  spit(graph, text);
  EXPECT_EQ(run_attractor({"run", graph, "--simulate", "-q", "--logs-root", dir.sub("a")}).exit_code, 4);
  EXPECT_EQ(run_attractor({"run", graph, "--simulate", "-q", "--logs-root", dir.sub("b"), "--max-total-tokens", "1000"})
                .exit_code,
            0);
}

TEST(BudgetTest, PricesGiveCostsInStatusEventsAndSummaryAndCapTheRun) {
  ScratchDir dir;
  const std::string prices = dir.sub("prices.json");
  spit(prices, R"({"simulation": {"input": 1000, "output": 2000}})");
  const std::string run = dir.sub("run");
  ProcessResult r = run_attractor({"run", kGraph, "--simulate", "--logs-root", run, "--prices", prices});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tokens: 107 input, 19 output (2 requests in 2 stages), cost $0.1450\n"), std::string::npos)
      << r.err;
  nlohmann::json status = nlohmann::json::parse(slurp(run + "/run_tests/status.json"));
  EXPECT_DOUBLE_EQ(status["usage"]["cost_usd"].get<double>(), 0.062);  // 42 x $1000/M + 10 x $2000/M
  EXPECT_NE(slurp(run + "/events.jsonl").find("\"cost_usd\":0.062"), std::string::npos);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(slurp(run + "/checkpoint.json"))["usage"]["cost_usd"].get<double>(), 0.145);

  ProcessResult capped = run_attractor(
      {"run", kGraph, "--simulate", "-q", "--logs-root", dir.sub("capped"), "--prices", prices, "--max-cost", "0.05"});
  EXPECT_EQ(capped.exit_code, 4);
  EXPECT_NE(capped.err.find("stopped: cost budget reached: $0.0620 of max_cost=$0.0500 spent before stage `report`"),
            std::string::npos)
      << capped.err;
}

TEST(BudgetTest, ACostCapNeedsPricesForEveryModelItMeets) {
  ScratchDir dir;
  ProcessResult none = run_attractor(
      {"run", kGraph, "--simulate", "-q", "--logs-root", dir.sub("a"), "--max-cost", "1"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err,
            "attractor: a cost budget (--max-cost or graph attribute max_cost) needs prices: pass --prices FILE.json "
            "({\"MODEL\": {\"input\": USD, \"output\": USD}} per million tokens)\n");
  const std::string prices = dir.sub("prices.json");
  spit(prices, R"({"gpt-4o": {"input": 2.5, "output": 10}})");
  ProcessResult unpriced = run_attractor(
      {"run", kGraph, "--simulate", "-q", "--logs-root", dir.sub("b"), "--prices", prices, "--max-cost", "1"});
  EXPECT_EQ(unpriced.exit_code, 4);
  EXPECT_NE(unpriced.err.find("stopped: cost budget cannot be kept: no price for model `simulation` (add it, or `*`, "
                              "to the price table) before stage `report`"),
            std::string::npos)
      << unpriced.err;
  spit(prices, R"({"gpt-4o": {"input": "cheap"}})");
  ProcessResult bad = run_attractor(
      {"run", kGraph, "--simulate", "-q", "--logs-root", dir.sub("c"), "--prices", prices});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "attractor: " + prices +
                         ": price of `gpt-4o`: expected {\"input\": USD, \"output\": USD} per million tokens, both "
                         "numbers >= 0\n");
}

}  // namespace
}  // namespace attractor
