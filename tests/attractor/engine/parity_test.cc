// The §11.12 cross-feature parity matrix (one test per row) and the §11.13 integration smoke test,
// on DOT text through load_pipeline_text and the engine with the simulation backend.

#include <filesystem>

#include <gtest/gtest.h>

#include "attractor/check/pipeline_loader.h"
#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::read_json;
using testing::TestRun;
using Nodes = std::vector<std::string>;

Graph load(const std::string& dot) {
  LoadedPipeline p = load_pipeline_text("test.dot", dot, builtin_handler_catalog());
  std::string messages;
  for (const auto& d : p.diagnostics) messages += format_diagnostic(d, p.source.get());
  EXPECT_TRUE(p.ok()) << messages;
  return p.graph ? *p.graph : Graph();
}

bool has_error(const std::string& dot) { return !load_pipeline_text("test.dot", dot, builtin_handler_catalog()).ok(); }

TEST(ParityMatrix, ParseSimpleLinearPipeline) {
  Graph g = load("digraph L { start [shape=Mdiamond]; A; B; done [shape=Msquare]; start -> A -> B -> done }");
  EXPECT_EQ(g.node_count(), 4u);
  EXPECT_EQ(g.edge_count(), 3u);
}

TEST(ParityMatrix, ParseGraphLevelAttributes) {
  Graph g = load(R"(digraph G { graph [goal="Ship", label="Release"]
    start [shape=Mdiamond]; done [shape=Msquare]; start -> done })");
  EXPECT_EQ(g.data().goal(), "Ship");
  EXPECT_EQ(g.data().label(), "Release");
}

TEST(ParityMatrix, ParseMultiLineNodeAttributes) {
  Graph g = load(R"(digraph G {
    start [shape=Mdiamond]
    plan [
      label="Plan",
      prompt="Plan it",
      max_retries=2
    ]
    done [shape=Msquare]
    start -> plan -> done
  })");
  EXPECT_EQ(g.node("plan")->label(), "Plan");
  EXPECT_EQ(g.node("plan")->max_retries(), 2);
}

TEST(ParityMatrix, ValidateMissingStartIsAnError) {
  EXPECT_TRUE(has_error("digraph G { a [prompt=\"x\"]; done [shape=Msquare]; a -> done }"));
}

TEST(ParityMatrix, ValidateMissingExitIsAnError) {
  EXPECT_TRUE(has_error("digraph G { start [shape=Mdiamond]; a [prompt=\"x\"]; start -> a }"));
}

TEST(ParityMatrix, ValidateOrphanNodeIsReported) {
  // docs/decisions.md: unreachable nodes are an ERROR (§7.2), not a warning.
  EXPECT_TRUE(has_error(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    orphan [prompt="x"]; start -> done })"));
}

const char* kLinear = R"(digraph Lin { graph [goal="g"]
  start [shape=Mdiamond]
  a [prompt="A"]; b [prompt="B"]; c [prompt="C"]
  done [shape=Msquare]
  start -> a -> b -> c -> done })";

TEST(ParityMatrix, ExecuteLinearThreeNodePipeline) {
  TestRun t;
  RunResult r = t.run(load(kLinear));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "a", "b", "c"}));
}

TEST(ParityMatrix, ExecuteWithConditionalBranching) {
  const char* dot = R"(digraph B {
    start [shape=Mdiamond]; done [shape=Msquare]
    validate [prompt="v", simulate.outcome="%s"]
    gate [shape=diamond]
    good [prompt="g"]; bad [prompt="b"]
    start -> validate
    validate -> gate [condition="outcome=success"]
    validate -> bad [condition="outcome=fail"]
    gate -> good [condition="outcome=success"]
    gate -> bad [condition="outcome!=success"]
    good -> done; bad -> done })";
  for (std::string outcome : {"success", "fail"}) {
    char text[1024];
    std::snprintf(text, sizeof(text), dot, outcome.c_str());
    TestRun t;
    RunResult r = t.run(load(text));
    EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
    EXPECT_EQ(r.checkpoint.completed_nodes,
              outcome == "success" ? (Nodes{"start", "validate", "gate", "good"}) : (Nodes{"start", "validate", "bad"}))
        << outcome;
  }
}

TEST(ParityMatrix, ExecuteWithRetryOnFailure) {
  TestRun t;
  RunResult r = t.run(load(R"(digraph R { start [shape=Mdiamond]; done [shape=Msquare]
    flaky [prompt="f", max_retries=2, simulate.outcome="fail,fail,success"]
    start -> flaky -> done })"));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  auto names = t.events->names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "StageStarted"), 4);  // start + 3 attempts
  EXPECT_EQ(t.clock.sleeps(), (std::vector<std::int64_t>{200, 400}));
}

const char* kGate = R"(digraph Gate { start [shape=Mdiamond]; done [shape=Msquare]
  impl [prompt="i", goal_gate=true, retry_target=impl, simulate.outcome="%s"]
  start -> impl
  impl -> done [condition="outcome=success"]
  impl -> done [condition="outcome=fail"] })";

TEST(ParityMatrix, GoalGateBlocksExitWhenUnsatisfied) {
  char text[512];
  std::snprintf(text, sizeof(text), kGate, "fail,fail,success");
  TestRun t;
  RunResult r = t.run(load(text));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "impl", "impl", "impl"}));
}

TEST(ParityMatrix, GoalGateAllowsExitWhenAllSatisfied) {
  char text[512];
  std::snprintf(text, sizeof(text), kGate, "success");
  TestRun t;
  RunResult r = t.run(load(text));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "impl"}));
}

TEST(ParityMatrix, WaitHumanPresentsChoicesAndRoutes) {
  const char* dot = R"(digraph H { start [shape=Mdiamond]; done [shape=Msquare]
    review [shape=hexagon, label="Ship it?"]
    ship [prompt="s"]; rework [prompt="r"]
    start -> review
    review -> ship [label="[S] Ship"]
    review -> rework [label="[R] Rework"]
    ship -> done; rework -> done })";
  TestRun t;
  auto queue = std::make_shared<QueueInterviewer>(std::vector<Answer>{Answer::of("R")});
  auto recorder = std::make_shared<RecordingInterviewer>(queue);
  t.services.interviewer = recorder;
  RunResult r = t.run(load(dot));
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "review", "rework"}));
  EXPECT_EQ(r.checkpoint.context["human.gate.selected"], "R");
  ASSERT_EQ(recorder->recordings().size(), 1u);
  EXPECT_EQ(recorder->recordings()[0].first.options.size(), 2u);
  EXPECT_EQ(recorder->recordings()[0].first.options[0].label, "[S] Ship");
}

TEST(ParityMatrix, EdgeSelectionConditionBeatsWeight) {
  TestRun t;
  RunResult r = t.run(load(R"(digraph E { start [shape=Mdiamond]; done [shape=Msquare]
    a [prompt="a"]; heavy [prompt="h"]; cond [prompt="c"]
    start -> a; a -> heavy [weight=10]; a -> cond [condition="outcome=success"]
    heavy -> done; cond -> done })"));
  EXPECT_EQ(r.checkpoint.completed_nodes.back(), "cond");
}

TEST(ParityMatrix, EdgeSelectionWeightBreaksTies) {
  TestRun t;
  RunResult r = t.run(load(R"(digraph E { start [shape=Mdiamond]; done [shape=Msquare]
    a [prompt="a"]; x [prompt="x"]; y [prompt="y"]
    start -> a; a -> x [weight=1]; a -> y [weight=2]; x -> done; y -> done })"));
  EXPECT_EQ(r.checkpoint.completed_nodes.back(), "y");
}

TEST(ParityMatrix, EdgeSelectionLexicalTiebreak) {
  TestRun t;
  RunResult r = t.run(load(R"(digraph E { start [shape=Mdiamond]; done [shape=Msquare]
    a [prompt="a"]; zeta [prompt="z"]; beta [prompt="b"]
    start -> a; a -> zeta; a -> beta; zeta -> done; beta -> done })"));
  EXPECT_EQ(r.checkpoint.completed_nodes.back(), "beta");
}

TEST(ParityMatrix, ContextUpdatesVisibleToNextNode) {
  TestRun t;
  RunResult r = t.run(load(R"(digraph C { start [shape=Mdiamond]; done [shape=Msquare]
    produce [prompt="p"]
    check [shape=parallelogram, tool_command="test \"$ATTRACTOR_CTX_LAST_STAGE\" = produce"]
    start -> produce -> check -> done })"));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
}

TEST(ParityMatrix, CheckpointSaveAndResumeProducesSameResult) {
  Graph g = load(kLinear);
  TestRun straight;
  RunResult full = straight.run(g);
  // Rewind a copy of the finished run to the checkpoint after `a` and resume it.
  TestRun partial;
  RunResult cut = partial.run(g);
  Checkpoint cp = load_checkpoint(partial.run_dir());
  cp.completed_nodes = {"start", "a"};
  cp.current_node = "a";
  cp.next_node = "b";
  cp.state = "running";
  cp.final_outcome = nullptr;
  cp.total_executions = 2;
  cp.visit_counts = {{"start", 1}, {"a", 1}};
  cp.node_outcomes.erase("b");
  cp.node_outcomes.erase("c");
  cp.context["last_stage"] = "a";
  cp.context["last_response"] = "[Simulated] Response for stage: a";
  cp.context["last_model_response"] = "[Simulated] Response for stage: a";
  cp.context["current_node"] = "a";
  cp.context.erase("internal.codergen_calls.b");
  cp.context.erase("internal.codergen_calls.c");
  save_checkpoint(cp, partial.run_dir());
  RunResult resumed = partial.resume(g);
  EXPECT_EQ(resumed.outcome.status, full.outcome.status);
  EXPECT_EQ(resumed.checkpoint.completed_nodes, full.checkpoint.completed_nodes);
  nlohmann::json a = resumed.checkpoint.context;
  nlohmann::json b = full.checkpoint.context;
  a.erase("internal.run_id");
  b.erase("internal.run_id");
  EXPECT_EQ(a, b);
  (void)cut;
}

TEST(ParityMatrix, StylesheetAppliesModelOverrideByShape) {
  Graph g = load(R"(digraph S { graph [model_stylesheet="box { llm_model: big-model; }"]
    start [shape=Mdiamond]; done [shape=Msquare]; a [prompt="a"]; start -> a -> done })");
  EXPECT_EQ(g.node("a")->llm_model(), "big-model");
}

TEST(ParityMatrix, PromptVariableExpansion) {
  TestRun t;
  RunResult r = t.run(load(R"(digraph P { graph [goal="write hello"]
    start [shape=Mdiamond]; done [shape=Msquare]; a [prompt="Do: $goal"]; start -> a -> done })"));
  // The default fidelity (compact) puts its preamble in front of the prompt.
  EXPECT_EQ(read_text_file(t.run_dir() + "/a/prompt.md"),
            "## Pipeline State\n\n- Pipeline: P\n- Goal: write hello\n- Completed stages: start (success)\n"
            "- Current stage: a\n\nDo: write hello");
}

TEST(ParityMatrix, ParallelFanOutAndFanIn) {
  TestRun t;
  RunResult r = t.run(load(R"(digraph Par { start [shape=Mdiamond]; done [shape=Msquare]
    fan [shape=component]; x [prompt="x"]; y [prompt="y"]; join [shape=tripleoctagon]
    start -> fan; fan -> x; fan -> y; x -> join; y -> join; join -> done })"));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "fan", "x", "y", "join"}));
  EXPECT_EQ(r.checkpoint.context["parallel.fan_in.best_id"], "x");
}

TEST(ParityMatrix, CustomHandlerRegistrationAndExecution) {
  class Stamp : public Handler {
   public:
    Outcome execute(const NodeData& n, Context&, const Graph&, const StageEnv&) override {
      Outcome o = Outcome::success();
      o.context_updates["stamped"] = n.get("custom_attr");
      return o;
    }
  };
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("stamp", std::make_shared<Stamp>());
  TestRun t;
  RunResult r = t.run(load(R"(digraph X { start [shape=Mdiamond]; done [shape=Msquare]
    s [type="stamp", custom_attr="hello"]; start -> s -> done })"),
                      registry);
  EXPECT_EQ(r.checkpoint.context["stamped"], "hello");
}

TEST(ParityMatrix, TenPlusNodePipelineCompletes) {
  std::string dot = "digraph Big { start [shape=Mdiamond]; done [shape=Msquare]\n";
  std::string prev = "start";
  for (int i = 1; i <= 12; ++i) {
    std::string id = "n" + std::to_string(i);
    dot += id + " [prompt=\"step " + std::to_string(i) + "\"]\n" + prev + " -> " + id + "\n";
    prev = id;
  }
  dot += prev + " -> done }";
  TestRun t;
  RunResult r = t.run(load(dot));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.completed_nodes.size(), 13u);
}

TEST(SmokeTest, Section11_13WithSimulationBackend) {
  const char* dot = R"(digraph test_pipeline {
    graph [goal="Create a hello world Python script"]

    start       [shape=Mdiamond]
    plan        [shape=box, prompt="Plan how to create a hello world script for: $goal"]
    implement   [shape=box, prompt="Write the code based on the plan", goal_gate=true]
    review      [shape=box, prompt="Review the code for correctness"]
    done        [shape=Msquare]

    start -> plan
    plan -> implement
    implement -> review [condition="outcome=success"]
    implement -> plan   [condition="outcome=fail", label="Retry"]
    review -> done      [condition="outcome=success"]
    review -> implement [condition="outcome=fail", label="Fix"]
  })";
  LoadedPipeline p = load_pipeline_text("smoke.dot", dot, builtin_handler_catalog());
  ASSERT_TRUE(p.ok());
  const Graph& g = *p.graph;
  EXPECT_EQ(g.data().goal(), "Create a hello world Python script");
  EXPECT_EQ(g.node_count(), 5u);
  EXPECT_EQ(g.edge_count(), 6u);

  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  for (const char* id : {"plan", "implement", "review"}) {
    for (const char* f : {"prompt.md", "response.md", "status.json"}) {
      EXPECT_TRUE(fs::exists(fs::path(t.run_dir()) / id / f)) << id << "/" << f;
    }
  }
  EXPECT_EQ(r.checkpoint.node_outcomes.at("implement").status, StageStatus::kSuccess);
  Checkpoint cp = load_checkpoint(t.run_dir());
  EXPECT_EQ(cp.current_node, "done");
  EXPECT_EQ(cp.completed_nodes, (Nodes{"start", "plan", "implement", "review"}));
  EXPECT_EQ(read_text_file(t.run_dir() + "/plan/prompt.md"),
            "## Pipeline State\n\n- Pipeline: test_pipeline\n- Goal: Create a hello world Python script\n"
            "- Completed stages: start (success)\n- Current stage: plan\n\n"
            "Plan how to create a hello world script for: Create a hello world Python script");
}

}  // namespace
}  // namespace attractor
