// End-to-end engine runs on graphs built in code: traversal, retries, goal gates, failure
// routing, the status-file contract, custom handlers, the runaway-loop guard and events.

#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "attractor/engine/engine.h"
#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::edge;
using testing::node;
using testing::read_json;
using testing::TestRun;
using Nodes = std::vector<std::string>;

/// A handler driven by a function, for custom behaviour in tests.
class FnHandler : public Handler {
 public:
  using Fn = std::function<Outcome(const NodeData&, Context&, const StageEnv&)>;
  explicit FnHandler(Fn fn) : fn_(std::move(fn)) {}
  Outcome execute(const NodeData& n, Context& c, const Graph&, const StageEnv& env) override { return fn_(n, c, env); }

 private:
  Fn fn_;
};

TEST(EngineRunTest, LinearPipelineWritesStageFilesAndCheckpoint) {
  Graph g = testing::linear_graph({"a", "b", "c"});
  g.data().set("goal", "ship it");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "a", "b", "c"}));
  EXPECT_EQ(r.checkpoint.current_node, "exit");
  EXPECT_EQ(r.checkpoint.state, "success");
  for (const char* id : {"a", "b", "c"}) {
    for (const char* f : {"prompt.md", "response.md", "status.json"}) {
      EXPECT_TRUE(fs::exists(fs::path(t.run_dir()) / id / f)) << id << "/" << f;
    }
  }
  EXPECT_EQ(read_text_file(t.run_dir() + "/b/response.md"), "[Simulated] Response for stage: b");
  EXPECT_EQ(read_json(t.run_dir() + "/b/status.json")["outcome"], "success");
  nlohmann::json cp = read_json(t.run_dir() + "/checkpoint.json");
  EXPECT_EQ(cp["current_node"], "exit");
  EXPECT_EQ(cp["context"]["graph.goal"], "ship it");
  EXPECT_EQ(cp["context"]["last_stage"], "c");
  EXPECT_EQ(cp["context"]["outcome"], "success");
  EXPECT_TRUE(fs::exists(t.run_dir() + "/manifest.json"));
  EXPECT_TRUE(fs::exists(t.run_dir() + "/events.jsonl"));
}

TEST(EngineRunTest, EventsFollowTheLifecycle) {
  Graph g = testing::linear_graph({"a"});
  TestRun t;
  t.run(g);
  EXPECT_EQ(t.events->names(), (Nodes{"CheckpointSaved", "PipelineStarted", "StageStarted", "StageCompleted",
                                      "CheckpointSaved", "StageStarted", "StageUsage", "StageCompleted",
                                      "CheckpointSaved", "CheckpointSaved", "PipelineCompleted"}));
  std::string jsonl = read_text_file(t.run_dir() + "/events.jsonl");
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 11);
  EXPECT_NE(jsonl.find("\"event\":\"StageStarted\""), std::string::npos);
}

TEST(EngineRunTest, ConditionalBranchingFollowsOutcome) {
  for (const char* result : {"success", "fail"}) {
    Graph g;
    node(g, "start", {{"shape", "Mdiamond"}});
    node(g, "check", {{"simulate.outcome", result}});
    node(g, "ship");
    node(g, "repair");
    node(g, "exit", {{"shape", "Msquare"}});
    edge(g, "start", "check");
    edge(g, "check", "ship", {{"condition", "outcome=success"}});
    edge(g, "check", "repair", {{"condition", "outcome=fail"}});
    edge(g, "ship", "exit");
    edge(g, "repair", "exit");
    TestRun t;
    RunResult r = t.run(g);
    EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
    EXPECT_EQ(r.checkpoint.completed_nodes[2], std::string(result) == "success" ? "ship" : "repair");
  }
}

TEST(EngineRunTest, RetryOnFailureWithBackoff) {
  Graph g = testing::linear_graph({"flaky"});
  g.node("flaky")->set("max_retries", "2");
  g.node("flaky")->set("simulate.outcome", "fail,fail,success");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(t.clock.sleeps(), (std::vector<std::int64_t>{200, 400}));
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "flaky"}));
  auto names = t.events->names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "StageRetrying"), 2);
  EXPECT_EQ(r.checkpoint.node_retries.count("flaky"), 0u);  // reset on success
  // Three attempts in one visit: the per-node counter is in the checkpoint, not the context.
  EXPECT_EQ(r.checkpoint.node_attempts.at("flaky"), 3);
  EXPECT_EQ(r.checkpoint.visit_counts.at("flaky"), 1);
  for (const auto& [key, value] : r.checkpoint.context.items()) {
    EXPECT_FALSE(key.starts_with("internal.codergen_calls")) << key;
  }
}

TEST(EngineRunTest, RetriesExhaustedEndsInFail) {
  Graph g = testing::linear_graph({"bad"});
  g.node("bad")->set("max_retries", "2");
  g.node("bad")->set("simulate.outcome", "fail");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason,
            "stage `bad` failed after 3 attempts and no failure route leads on: simulated fail");
  EXPECT_EQ(t.clock.sleeps().size(), 2u);
  EXPECT_EQ(r.checkpoint.node_retries.at("bad"), 2);
  EXPECT_EQ(r.checkpoint.context["internal.retry_count.bad"], 2);
  EXPECT_EQ(r.checkpoint.current_node, "bad");
}

TEST(EngineRunTest, RetryStatusExhaustedHonoursAllowPartial) {
  for (bool partial : {false, true}) {
    Graph g = testing::linear_graph({"r"});
    g.node("r")->set("max_retries", "1");
    g.node("r")->set("simulate.outcome", "retry");
    if (partial) g.node("r")->set("allow_partial", "true");
    TestRun t;
    RunResult r = t.run(g);
    EXPECT_EQ(r.checkpoint.node_outcomes.at("r").status, partial ? StageStatus::kPartialSuccess : StageStatus::kFail);
    if (!partial)
      EXPECT_EQ(
          r.outcome.failure_reason,
          "stage `r` failed after 2 attempts and no failure route leads on: max retries exceeded: simulated retry");
  }
}

TEST(EngineRunTest, TerminalFailuresAreNotRetried) {
  Graph g = testing::linear_graph({"auth"});
  g.node("auth")->set("max_retries", "3");
  TestRun t;
  t.services.backend = std::make_shared<SimulationBackend>(
      nlohmann::json{{"auth", {{"error", "terminal"}, {"failure_reason", "401 unauthorized"}}}});
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason,
            "stage `auth` failed after 1 attempt and no failure route leads on: 401 unauthorized");
  EXPECT_TRUE(t.clock.sleeps().empty());
}

Graph gate_graph(const char* outcomes) {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "impl", {{"goal_gate", "true"}, {"simulate.outcome", outcomes}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "impl");
  edge(g, "impl", "exit", {{"condition", "outcome=success"}});
  edge(g, "impl", "exit", {{"condition", "outcome=fail"}});
  return g;
}

TEST(EngineRunTest, GoalGateAllowsExitWhenSatisfied) {
  TestRun t;
  RunResult r = t.run(gate_graph("success"));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
}

TEST(EngineRunTest, GoalGateBlocksExitWithoutRetryTarget) {
  TestRun t;
  RunResult r = t.run(gate_graph("fail"));
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason,
            "goal gate `impl` was not satisfied (last outcome: fail) and has no retry_target: simulated fail");
  EXPECT_EQ(r.checkpoint.current_node, "exit");
}

TEST(EngineRunTest, GoalGateRetryTargetChain) {
  // node retry_target, node fallback, graph retry_target, graph fallback: the first that exists.
  for (int level = 0; level < 4; ++level) {
    Graph g = gate_graph("fail,success");
    node(g, "again");
    edge(g, "again", "impl");
    const char* keys[] = {"retry_target", "fallback_retry_target"};
    if (level < 2) g.node("impl")->set(keys[level], "again");
    else g.data().set(keys[level - 2], "again");
    if (level == 1) g.node("impl")->set("retry_target", "no_such_node");
    TestRun t;
    RunResult r = t.run(g);
    EXPECT_EQ(r.outcome.status, StageStatus::kSuccess) << level;
    EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "impl", "again", "impl"})) << level;
  }
}

Graph failing_with_routes(bool fail_edge, bool retry_target, bool fallback) {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "work", {{"simulate.outcome", "fail"}});
  for (const char* id : {"on_fail", "rt", "fb", "next"}) node(g, id);
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "work");
  edge(g, "work", "next");  // unconditional: never a failure route
  if (fail_edge) edge(g, "work", "on_fail", {{"condition", "outcome=fail"}});
  if (retry_target) g.node("work")->set("retry_target", "rt");
  if (fallback) g.node("work")->set("fallback_retry_target", "fb");
  for (const char* id : {"on_fail", "rt", "fb", "next"}) edge(g, id, "exit");
  return g;
}

TEST(EngineRunTest, FailureRoutingOrder) {
  struct Case {
    bool e, r, f;
    std::string expect;
  };
  for (const Case& c : {Case{true, true, true, "on_fail"}, Case{false, true, true, "rt"},
                        Case{false, false, true, "fb"}, Case{false, false, false, ""}}) {
    TestRun t;
    RunResult r = t.run(failing_with_routes(c.e, c.r, c.f));
    if (c.expect.empty()) {
      EXPECT_EQ(r.outcome.status, StageStatus::kFail);
      EXPECT_EQ(r.outcome.failure_reason,
                "stage `work` failed after 1 attempt and no failure route leads on: simulated fail");
      EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "work"}));
    } else {
      EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
      EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "work", c.expect}));
    }
  }
}

TEST(EngineRunTest, RunawayLoopIsCappedAndNamed) {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "a");
  node(g, "b");
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "a");
  edge(g, "a", "b");
  edge(g, "b", "a");
  edge(g, "b", "exit", {{"condition", "context.never=1"}});
  g.data().set("max_node_executions", "21");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason,
            "runaway loop: 21 node executions reached max_node_executions=21; loop through: a (10x), b (10x)");
  EXPECT_EQ(r.checkpoint.total_executions, 21);
}

TEST(EngineRunTest, CustomHandlerReadsUpdatesFromPreviousNode) {
  Graph g = testing::linear_graph({"produce", "consume"});
  g.node("produce")->set("type", "producer");
  g.node("consume")->set("type", "consumer");
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("producer", std::make_shared<FnHandler>([](const NodeData&, Context&, const StageEnv&) {
                              Outcome o = Outcome::success();
                              o.context_updates["answer"] = 42;
                              return o;
                            }));
  std::string seen;
  registry.register_handler("consumer", std::make_shared<FnHandler>([&](const NodeData&, Context& c, const StageEnv&) {
                              seen = c.get_string("answer");
                              return Outcome::success();
                            }));
  EXPECT_NE(registry.catalog().find("producer"), nullptr);
  TestRun t;
  RunResult r = t.run(g, registry);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(seen, "42");
}

TEST(EngineRunTest, ThrowingHandlerBecomesFail) {
  Graph g = testing::linear_graph({"boom"});
  g.node("boom")->set("type", "thrower");
  HandlerRegistry registry = make_default_registry();
  registry.register_handler(
      "thrower", std::make_shared<FnHandler>(
                     [](const NodeData&, Context&, const StageEnv&) -> Outcome { throw std::runtime_error("kaput"); }));
  TestRun t;
  RunResult r = t.run(g, registry);
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason, "stage `boom` failed after 1 attempt and no failure route leads on: kaput");
  EXPECT_EQ(read_json(t.run_dir() + "/boom/status.json")["failure_reason"], "kaput");
}

TEST(EngineRunTest, ExternalStatusFileIsHonoured) {
  Graph g = testing::linear_graph({"agent", "after"});
  g.node("agent")->set("type", "writer");
  HandlerRegistry registry = make_default_registry();
  registry.register_handler(
      "writer", std::make_shared<FnHandler>([](const NodeData&, Context&, const StageEnv& env) {
        write_text_file(env.stage_dir + "/status.json",
                        R"({"outcome": "partial_success", "context_updates": {"from_file": "yes"}, "notes": "agent"})");
        return Outcome::fail("handler thought it failed");
      }));
  TestRun t;
  RunResult r = t.run(g, registry);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.node_outcomes.at("agent").status, StageStatus::kPartialSuccess);
  EXPECT_EQ(r.checkpoint.context["from_file"], "yes");
}

TEST(EngineRunTest, StalePendingStatusUsesAutoStatus) {
  for (bool auto_status : {true, false}) {
    Graph g = testing::linear_graph({"agent"});
    g.node("agent")->set("type", "pending");
    if (auto_status) g.node("agent")->set("auto_status", "true");
    HandlerRegistry registry = make_default_registry();
    registry.register_handler("pending", std::make_shared<FnHandler>([](const NodeData&, Context&, const StageEnv&) {
                                Outcome o;
                                o.status_pending = true;
                                return o;
                              }));
    TestRun t;
    RunResult r = t.run(g, registry);
    if (auto_status) {
      EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
      EXPECT_EQ(read_json(t.run_dir() + "/agent/status.json")["notes"],
                "auto-status: handler completed without writing status");
    } else {
      EXPECT_EQ(
          r.outcome.failure_reason,
          "stage `agent` failed after 1 attempt and no failure route leads on: stage agent did not write status.json");
    }
  }
}

TEST(EngineRunTest, NodeTimeoutCancelsABlockingHandler) {
  Graph g = testing::linear_graph({"slow"});
  g.node("slow")->set("type", "blocker");
  g.node("slow")->set("timeout", "50ms");
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("blocker", std::make_shared<FnHandler>([](const NodeData&, Context&, const StageEnv& env) {
                              while (!env.cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
                              return Outcome::success();
                            }));
  TestRun t;
  RunResult r = t.run(g, registry);
  EXPECT_EQ(r.outcome.status, StageStatus::kFail);
  EXPECT_EQ(r.outcome.failure_reason,
            "stage `slow` failed after 1 attempt and no failure route leads on: stage slow timed out after 50ms");
}

TEST(EngineRunTest, SeedContextAndGraphMirrors) {
  Graph g = testing::linear_graph({"a"});
  g.data().set("goal", "G");
  g.data().set("label", "L");
  TestRun t;
  RunResult r = t.run(g, nlohmann::json{{"user", "x"}, {"n", 3}});
  EXPECT_EQ(r.checkpoint.context["user"], "x");
  EXPECT_EQ(r.checkpoint.context["n"], 3);
  EXPECT_EQ(r.checkpoint.context["graph.goal"], "G");
  EXPECT_EQ(r.checkpoint.context["graph.label"], "L");
  EXPECT_EQ(r.checkpoint.context["current_node"], "a");
}

TEST(EngineRunTest, InterruptKeepsCheckpointAndResumeNeverRerunsCompletedNodes) {
  Graph g = testing::linear_graph({"a", "b", "c"});
  for (const char* id : {"a", "b", "c"}) g.node(id)->set("type", "counted");
  std::map<std::string, int> runs;
  CancelToken* cancel_ptr = nullptr;
  bool interrupt_at_b = true;
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("counted", std::make_shared<FnHandler>([&](const NodeData& n, Context& c, const StageEnv&) {
                              runs[n.id]++;
                              if (n.id == "b" && interrupt_at_b) {
                                cancel_ptr->cancel();
                                return Outcome::fail("interrupted mid-stage");
                              }
                              Outcome o = Outcome::success();
                              o.context_updates["seen." + n.id] = c.get_string("last");
                              o.context_updates["last"] = n.id;
                              return o;
                            }));
  TestRun t;
  cancel_ptr = &t.cancel;
  RunResult first = t.run(g, registry);
  EXPECT_TRUE(first.interrupted);
  Checkpoint cp = load_checkpoint(t.run_dir());
  EXPECT_EQ(cp.completed_nodes, (Nodes{"start", "a"}));
  EXPECT_EQ(cp.next_node, "b");

  interrupt_at_b = false;
  t.cancel = CancelToken();
  RunResult resumed = t.resume(g, registry);
  EXPECT_EQ(resumed.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(runs["a"], 1);
  EXPECT_EQ(runs["b"], 2);
  EXPECT_EQ(runs["c"], 1);
  EXPECT_EQ(resumed.checkpoint.completed_nodes, (Nodes{"start", "a", "b", "c"}));
  EXPECT_EQ(resumed.checkpoint.context["seen.c"], "b");

  TestRun fresh;
  RunResult straight = fresh.run(g, registry);
  nlohmann::json a = straight.checkpoint.to_json();
  nlohmann::json b = resumed.checkpoint.to_json();
  for (auto* j : {&a, &b}) {
    for (const char* k : {"timestamp", "timestamp_ms", "run_id", "usage"}) j->erase(k);
    (*j)["context"].erase("internal.run_id");
  }
  EXPECT_EQ(a, b);

  RunResult again = t.resume(g, registry);  // a finished run is not re-run
  EXPECT_EQ(again.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(runs["c"], 2);  // only `fresh` ran c again
}

TEST(EngineRunTest, LoopRestartStartsAFreshRunDirectory) {
  int calls = 0;
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("gate", std::make_shared<FnHandler>([&](const NodeData&, Context&, const StageEnv&) {
                              Outcome o = Outcome::success();
                              o.preferred_label = ++calls == 1 ? "again" : "done";
                              return o;
                            }));
  Graph h;
  node(h, "start", {{"shape", "Mdiamond"}});
  node(h, "a");
  node(h, "b", {{"type", "gate"}});
  node(h, "exit", {{"shape", "Msquare"}});
  edge(h, "start", "a");
  edge(h, "a", "b");
  edge(h, "b", "a", {{"label", "again"}, {"loop_restart", "true"}});
  edge(h, "b", "exit", {{"label", "done"}});
  TestRun t;
  RunResult r = t.run(h, registry);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.run_dir, t.run_dir() + "-restart1");
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"a", "b"}));
  EXPECT_EQ(read_manifest(r.run_dir).parent_run, t.run_dir());
  EXPECT_EQ(load_checkpoint(t.run_dir()).completed_nodes, (Nodes{"start", "a", "b"}));
  fs::remove_all(r.run_dir);
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

TEST(EngineFidelityTest, EdgeThenNodeThenGraphThenCompactAndResumeDegradesFull) {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "a", {{"type", "probe"}});
  node(g, "b", {{"type", "probe"}, {"fidelity", "truncate"}});
  node(g, "c", {{"type", "probe"}, {"fidelity", "truncate"}});
  node(g, "d", {{"type", "probe"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "a");
  edge(g, "a", "b");
  edge(g, "b", "c", {{"fidelity", "full"}});
  edge(g, "c", "d");
  edge(g, "d", "exit");
  std::map<std::string, std::string> seen;
  CancelToken* cancel = nullptr;
  bool stop_at_d = true;
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("probe", std::make_shared<FnHandler>([&](const NodeData& n, Context&, const StageEnv& env) {
                              seen[n.id] = env.fidelity;
                              if (n.id == "d" && stop_at_d) cancel->cancel();
                              return Outcome::success();
                            }));
  TestRun t;
  cancel = &t.cancel;
  g.data().set("default_fidelity", "summary:low");
  RunResult first = t.run(g, registry);
  ASSERT_TRUE(first.interrupted);
  EXPECT_EQ(seen["a"], "summary:low");
  EXPECT_EQ(seen["b"], "truncate");
  EXPECT_EQ(seen["c"], "full");
  EXPECT_EQ(load_checkpoint(t.run_dir()).last_fidelity, "full");
  // d would get graph default summary:low; make it full to see the resume degrade.
  g.node("d")->set("fidelity", "full");
  stop_at_d = false;
  t.cancel = CancelToken();
  RunResult resumed = t.resume(g, registry);
  EXPECT_EQ(resumed.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(seen["d"], "summary:high");
  g.data().attrs.erase("default_fidelity");
  TestRun u;
  u.run(g, registry);
  EXPECT_EQ(seen["a"], "compact");
}

}  // namespace
}  // namespace attractor
