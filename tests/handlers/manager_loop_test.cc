// stack.manager_loop supervising in-process child pipelines from tests/data/engine/.

#include <gtest/gtest.h>

#include "attractor/run/checkpoint.h"
#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

using testing::edge;
using testing::node;
using testing::TestRun;

const std::string kData = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/";

Graph manager_graph(const std::string& child, testing::Attrs extra = {}) {
  Graph g;
  g.data().set("goal", "keep going");
  g.data().set("stack.child_dotfile", kData + child);
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "manager", {{"shape", "house"}, {"manager.poll_interval", "20ms"}});
  for (const auto& [k, v] : extra) g.node("manager")->set(k, v);
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "manager");
  edge(g, "manager", "exit", {{"condition", "outcome=success"}});
  return g;
}

TEST(ManagerLoopTest, SucceedsWhenTheChildCompletes) {
  TestRun t;
  RunResult r = t.run(manager_graph("child_ok.dot"));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(r.checkpoint.context["stack.child.status"], "completed");
  EXPECT_EQ(r.checkpoint.context["stack.child.outcome"], "success");
  EXPECT_EQ(r.checkpoint.context["stack.child.completed_count"], 3);
  Checkpoint child = load_checkpoint(t.run_dir() + "/manager/child");
  EXPECT_EQ(child.current_node, "done");
  EXPECT_EQ(child.completed_nodes, (std::vector<std::string>{"start", "one", "two"}));
}

TEST(ManagerLoopTest, FailsWhenTheChildFails) {
  TestRun t;
  RunResult r = t.run(manager_graph("child_fail.dot"));
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason,
            "stage `manager` failed after 1 attempt and no failure route leads on: Child failed: stage `broken` failed "
            "after 1 attempt and no failure route leads on: tool exited with code 4");
}

TEST(ManagerLoopTest, SteersTheRunningChildStage) {
  TestRun t;
  RunResult r = t.run(manager_graph(
      "child_steered.dot", {{"manager.actions", "observe,steer,wait"}, {"manager.instructions", "Focus on: $goal"}}));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(read_text_file(t.run_dir() + "/manager/child/listen/attempt-1/stdout.txt"), "Focus on: keep going\n");
}

TEST(ManagerLoopTest, StopConditionEndsTheLoop) {
  TestRun t;
  // The steered child never finishes without steering; the stop condition ends supervision.
  RunResult r = t.run(manager_graph("child_steered.dot", {{"manager.stop_condition", "stack.child.status=running"}}));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.node_outcomes.at("manager").notes, "Stop condition satisfied");
}

TEST(ManagerLoopTest, MissingChildIsATerminalFailure) {
  TestRun t;
  Graph g = manager_graph("no_such_child.dot");
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_NE(r.outcome.failure_reason.find("is invalid"), std::string::npos) << r.outcome.failure_reason;
}

}  // namespace
}  // namespace attractor
