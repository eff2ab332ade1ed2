// A stage that stops the run as interrupted (StageEnv::interrupt_run: a human gate nobody can
// ask), and the StageWaiting signs of life of a stage waiting on a command.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/engine/engine.h"
#include "attractor/run/run_directory.h"
#include "handlers/registry.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

using testing::edge;
using testing::node;
using testing::TestRun;
using Nodes = std::vector<std::string>;

/// start -> build (a tool) -> review (a gate) -> ship -> exit.
Graph gate_graph() {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "build", {{"shape", "parallelogram"}, {"tool_command", "true"}});
  node(g, "review", {{"shape", "hexagon"}, {"label", "Ship it?"}});
  node(g, "ship", {{"shape", "parallelogram"}, {"tool_command", "true"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "build");
  edge(g, "build", "review");
  edge(g, "review", "ship", {{"label", "[S] Ship"}});
  edge(g, "ship", "exit");
  return g;
}

TEST(StageInterruptTest, AGateNobodyCanAskInterruptsBeforeItselfAndAResumeAsksAgain) {
  TestRun t;
  t.services.interviewer = std::make_shared<QueueInterviewer>();
  Graph g = gate_graph();
  RunResult stopped = t.run(g);
  EXPECT_TRUE(stopped.interrupted);
  const std::string reason = "human gate `review` could not ask: no answer is queued for it";
  EXPECT_EQ(stopped.outcome.failure_reason, reason);
  EXPECT_EQ(stopped.checkpoint.completed_nodes, (Nodes{"start", "build"}));
  EXPECT_EQ(stopped.checkpoint.next_node, "review");
  EXPECT_EQ(stopped.checkpoint.state, "running");
  bool saw_interrupted = false;
  for (const Event& e : t.events->events()) {
    EXPECT_NE(e.name, "StageFailed") << e.fields.dump();
    if (e.name == "PipelineInterrupted") {
      saw_interrupted = true;
      EXPECT_EQ(e.fields["reason"], reason);
      EXPECT_EQ(e.fields["next_node"], "review");
    }
  }
  EXPECT_TRUE(saw_interrupted);

  t.services.interviewer = std::make_shared<AutoApproveInterviewer>();
  t.cancel = CancelToken();  // a new process: the stop cancelled the run's token
  RunResult resumed = t.resume(g);
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(resumed.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(resumed.checkpoint.completed_nodes, (Nodes{"start", "build", "review", "ship"}));
}

TEST(StageInterruptTest, AStageWaitingOnACommandEmitsStageWaiting) {
  TestRun t;
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "work", {{"shape", "parallelogram"}, {"tool_command", "sleep 0.3"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "work");
  edge(g, "work", "exit");
  HandlerRegistry registry = make_default_registry(t.services);
  EngineOptions options = t.options();
  options.waiting_every_ms = 50;
  Engine engine(g, registry, std::move(options));
  EXPECT_EQ(engine.run().outcome.status, StageStatus::kSuccess);
  int waiting = 0;
  for (const Event& e : t.events->events()) {
    if (e.name != "StageWaiting") continue;
    ++waiting;
    EXPECT_EQ(e.fields["name"], "work");
    EXPECT_EQ(e.fields["waiting_on"], "command");
    EXPECT_EQ(e.fields["attempt"], 1);
    EXPECT_TRUE(e.fields["elapsed_ms"].is_number_integer());
  }
  EXPECT_GE(waiting, 1);
  // The start node waits on nothing, and nothing waits after the stage is done.
  Nodes names = t.events->names();
  auto completed = std::find(names.begin(), names.end(), "StageCompleted");
  auto last_completed = std::find(names.rbegin(), names.rend(), "StageCompleted");
  ASSERT_NE(completed, names.end());
  EXPECT_EQ(std::find(last_completed.base(), names.end(), "StageWaiting"), names.end());
}

}  // namespace
}  // namespace attractor
