// The per-node visit cap (model/visit_limit.h): an LLM loop whose exit condition never holds stops
// after a bounded number of calls, `max_visits` and `default_max_visits` move the cap, the failure
// names the attribute and the count, and normal failure routing applies.

#include <gtest/gtest.h>

#include "attractor/engine/event_names.h"
#include "attractor/model/visit_limit.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

using testing::edge;
using testing::node;
using testing::TestRun;

/// start -> a -> b -> a ..., with b -> exit only when a context value no stage sets is 1.
Graph endless_loop() {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "a", {{"prompt", "improve"}});
  node(g, "b", {{"prompt", "judge"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "a");
  edge(g, "a", "b");
  edge(g, "b", "a");
  edge(g, "b", "exit", {{"condition", "context.done=1"}});
  return g;
}

std::size_t llm_calls(const TestRun& t) {
  std::size_t n = 0;
  for (const Event& e : t.events->events()) n += e.name == kStageUsageEvent;
  return n;
}

TEST(VisitLimitTest, TheDefaultCapStopsAnEndlessLlmLoop) {
  TestRun t;
  RunResult r = t.run(endless_loop());
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason,
            "stage `a` failed and no failure route leads on: node `a` exceeded max_visits=20 (visit 21; the default "
            "cap: set max_visits on the node or default_max_visits on the graph to change it)");
  EXPECT_EQ(llm_calls(t), 2 * static_cast<std::size_t>(kDefaultMaxVisits));
  EXPECT_EQ(r.checkpoint.visit_counts["a"], kDefaultMaxVisits + 1);
}

TEST(VisitLimitTest, NodeMaxVisitsNamesTheAttributeAndTheCount) {
  Graph g = endless_loop();
  g.node("a")->set("max_visits", "3");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.failure_reason,
            "stage `a` failed and no failure route leads on: node `a` exceeded max_visits=3 (visit 4)");
  EXPECT_EQ(llm_calls(t), 6u);
}

TEST(VisitLimitTest, GraphDefaultMaxVisitsAppliesToNodesThatSetNone) {
  Graph g = endless_loop();
  g.data().set("default_max_visits", "2");
  g.node("b")->set("max_visits", "5");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.failure_reason,
            "stage `a` failed and no failure route leads on: node `a` exceeded default_max_visits=2 (visit 3)");
  EXPECT_EQ(llm_calls(t), 4u);
}

TEST(VisitLimitTest, FailureRoutingAppliesToAnExceededNode) {
  Graph g = endless_loop();
  g.node("a")->set("max_visits", "2");
  node(g, "give_up", {{"shape", "parallelogram"}, {"tool_command", "true"}});
  edge(g, "a", "give_up", {{"condition", "outcome=fail"}});
  edge(g, "give_up", "exit");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(r.checkpoint.completed_nodes.back(), "give_up");
  EXPECT_EQ(r.checkpoint.node_outcomes["a"].failure_reason, "node `a` exceeded max_visits=2 (visit 3)");
}

TEST(VisitLimitTest, ZeroMeansUnlimitedAndTheRunawayGuardStays) {
  Graph g = endless_loop();
  g.data().set("default_max_visits", "0");
  g.data().set("max_node_executions", "61");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.failure_reason,
            "runaway loop: 61 node executions reached max_node_executions=61; loop through: a (30x), b (30x)");
}

}  // namespace
}  // namespace attractor
