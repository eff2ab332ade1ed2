// The summarize-and-retry loop of graphs/code_rag.dot with a stand-in for manage_context_budget:
// loop_guard bounds it, set_variables puts the summary back into context_blocks, and the answer
// stage's prompt sees the final context through ${context_blocks}.

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {
namespace {

using json = nlohmann::json;
using testing::edge;
using testing::node;
using testing::TestRun;

/// Routes to `on_over` while `context_blocks` holds more than `fits` characters, else `on_ok`
/// (appending "evidence"); records what it saw.
class FakeBudget : public Handler {
 public:
  explicit FakeBudget(std::size_t fits) : fits_(fits) {}
  Outcome execute(const NodeData& n, Context& c, const Graph&, const StageEnv&) override {
    json blocks = c.get("context_blocks").value_or(json::array());
    std::size_t size = 0;
    for (const auto& b : blocks) size += b.get<std::string>().size();
    seen.push_back(blocks);
    Outcome o = Outcome::success();
    if (size > fits_) {
      o.suggested_next_ids = {n.get("on_over")};
      return o;
    }
    blocks.push_back("evidence");
    o.context_updates["context_blocks"] = blocks;
    o.suggested_next_ids = {n.get("on_ok")};
    return o;
  }
  std::vector<json> seen;

 private:
  std::size_t fits_;
};

Graph loop_graph() {
  Graph g;
  g.data().set("max_turn_loops", "2");
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "budget", {{"type", "fake_budget"}, {"on_ok", "answer"}, {"on_over", "guard"}});
  node(g, "guard",
       {{"type", "loop_guard"},
        {"max_turn_loops_from_settings", "max_turn_loops"},
        {"on_allow", "summarize"},
        {"on_deny", "answer"}});
  node(g, "summarize", {{"prompt", "Summarize:\n${context_blocks}"}});
  node(g, "set_ctx",
       {{"type", "set_variables"},
        {"next", "budget"},
        {"rules", R"([{"set": "context_blocks", "from": "last_model_response", "transform": "to_context_blocks"},
                                    {"set": "last_model_response", "value": null}])"}});
  node(g, "answer", {{"prompt", "Q: ${question}\nEvidence:\n${context_blocks}"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "budget");
  edge(g, "budget", "answer", {{"label", "on_ok"}});
  edge(g, "budget", "guard", {{"label", "on_over"}});
  edge(g, "guard", "summarize", {{"label", "allow"}});
  edge(g, "guard", "answer", {{"label", "deny"}});
  edge(g, "summarize", "set_ctx");
  edge(g, "set_ctx", "budget");
  edge(g, "answer", "exit");
  return g;
}

TEST(RagLoopTest, SummaryReplacesTheContextThenTheBudgetFits) {
  Graph g = loop_graph();
  TestRun t;
  t.services.backend = std::make_shared<SimulationBackend>(json{{"summarize", {"a much shorter summary", "short"}}});
  auto budget = std::make_shared<FakeBudget>(10);
  HandlerRegistry reg = make_default_registry(t.services);
  reg.register_handler("fake_budget", budget);
  RunResult r = t.run(g, reg, json{{"question", "why?"}, {"context_blocks", {"a very long earlier context block"}}});
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(r.checkpoint.completed_nodes,
            (std::vector<std::string>{"start", "budget", "guard", "summarize", "set_ctx", "budget", "guard",
                                      "summarize", "set_ctx", "budget", "answer"}));
  EXPECT_EQ(budget->seen, (std::vector<json>{json{"a very long earlier context block"}, json{"a much shorter summary"},
                                             json{"short"}}));
  std::string summarize = read_text_file(t.run_dir() + "/summarize/prompt.md");  // the second call's
  std::string expected = "Summarize:\na much shorter summary";
  ASSERT_GE(summarize.size(), expected.size());
  EXPECT_EQ(summarize.substr(summarize.size() - expected.size()), expected);
  std::string answer = read_text_file(t.run_dir() + "/answer/prompt.md");
  std::string task = "Q: why?\nEvidence:\nshort\n\nevidence";
  ASSERT_GE(answer.size(), task.size());
  EXPECT_EQ(answer.substr(answer.size() - task.size()), task);
  EXPECT_EQ(r.checkpoint.context["last_model_response"], "[Simulated] Response for stage: answer");
  EXPECT_EQ(r.checkpoint.context["loop_guard.guard"], 2);
}

TEST(RagLoopTest, GuardDeniesAfterMaxTurnLoopsAndTheAnswerRunsAnyway) {
  Graph g = loop_graph();
  TestRun t;
  t.services.backend = std::make_shared<SimulationBackend>(json{{"summarize", "still far too long to fit"}});
  auto budget = std::make_shared<FakeBudget>(10);
  HandlerRegistry reg = make_default_registry(t.services);
  reg.register_handler("fake_budget", budget);
  RunResult r = t.run(g, reg, json{{"question", "why?"}, {"context_blocks", {"a very long earlier context block"}}});
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(r.checkpoint.completed_nodes,
            (std::vector<std::string>{"start", "budget", "guard", "summarize", "set_ctx", "budget", "guard",
                                      "summarize", "set_ctx", "budget", "guard", "answer"}));
  EXPECT_EQ(r.checkpoint.context["loop_guard.guard"], 0);
  EXPECT_EQ(r.checkpoint.context["loop_guard_last"]["decision"], "deny");
  std::string answer = read_text_file(t.run_dir() + "/answer/prompt.md");
  std::string task = "Q: why?\nEvidence:\nstill far too long to fit";
  EXPECT_EQ(answer.substr(answer.size() - task.size()), task);
}

}  // namespace
}  // namespace attractor
