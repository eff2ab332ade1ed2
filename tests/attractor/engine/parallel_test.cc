// parallel and parallel.fan_in through the engine: fan-out on cloned contexts, convergence at the
// fan-in node, join policies, cancellation, and no second execution of branch nodes.

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "support/engine_test_support.h"
#include "handlers/parallel.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {
namespace {

using testing::edge;
using testing::node;
using testing::TestRun;
using Nodes = std::vector<std::string>;

/// start -> par -> {a, b -> b2} -> join -> after -> exit
Graph diamond(const char* join_policy = "wait_all") {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "par", {{"shape", "component"}, {"join_policy", join_policy}});
  node(g, "a");
  node(g, "b");
  node(g, "b2");
  node(g, "join", {{"shape", "tripleoctagon"}});
  node(g, "after");
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "par");
  edge(g, "par", "a");
  edge(g, "par", "b");
  edge(g, "a", "join");
  edge(g, "b", "b2");
  edge(g, "b2", "join");
  edge(g, "join", "after");
  edge(g, "after", "exit");
  return g;
}

TEST(ParallelTest, FindsTheConvergingFanIn) {
  Graph g = diamond();
  EXPECT_EQ(find_fan_in(g, builtin_handler_catalog(), "par"), "join");
  Graph h = testing::linear_graph({"x"});
  EXPECT_EQ(find_fan_in(h, builtin_handler_catalog(), "start"), "");
}

TEST(ParallelTest, BranchesRunOnceOnIsolatedContextsAndTraversalContinuesAtFanIn) {
  Graph g = diamond();
  TestRun t;
  t.services.backend = std::make_shared<SimulationBackend>(
      nlohmann::json{{"a", {{"response", "from a"}, {"context_updates", {{"shared", "a"}, {"score", 1}}}}},
                     {"b2", {{"response", "from b2"}, {"context_updates", {{"shared", "b"}, {"score", 5}}}}}});
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "par", "a", "b", "b2", "join", "after"}));
  const nlohmann::json& ctx = r.checkpoint.context;
  EXPECT_FALSE(ctx.contains("shared"));  // branch changes are not merged
  const nlohmann::json& results = ctx["parallel.results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["id"], "a");
  EXPECT_EQ(results[0]["status"], "success");
  EXPECT_EQ(results[0]["context_changes"]["shared"], "a");
  EXPECT_EQ(results[0]["last_response"], "from a");
  EXPECT_EQ(results[1]["completed_nodes"], (nlohmann::json{"b", "b2"}));
  EXPECT_EQ(results[1]["context_changes"]["shared"], "b");
  EXPECT_EQ(ctx["parallel.fan_in.best_id"], "b");  // higher score
  EXPECT_EQ(ctx["parallel.success_count"], 2);
  auto names = t.events->names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "ParallelBranchStarted"), 2);
  EXPECT_EQ(std::count(names.begin(), names.end(), "ParallelCompleted"), 1);
}

TEST(ParallelTest, WaitAllWithAFailedBranchIsPartialSuccess) {
  Graph g = diamond();
  g.node("a")->set("simulate.outcome", "fail");
  TestRun t;
  RunResult r = t.run(g);
  EXPECT_EQ(r.checkpoint.node_outcomes.at("par").status, StageStatus::kPartialSuccess);
  EXPECT_EQ(r.checkpoint.context["parallel.fan_in.best_id"], "b");
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
}

TEST(ParallelTest, FirstSuccessCancelsTheOtherBranches) {
  Graph g = diamond("first_success");
  g.node("b")->set("type", "blocker");
  class Blocker : public Handler {
   public:
    Outcome execute(const NodeData&, Context&, const Graph&, const StageEnv& env) override {
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!env.cancel.cancelled() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      return Outcome::success();
    }
  };
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("blocker", std::make_shared<Blocker>());
  TestRun t;
  auto started = std::chrono::steady_clock::now();
  RunResult r = t.run(g, registry);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  const nlohmann::json& results = r.checkpoint.context["parallel.results"];
  EXPECT_EQ(results[0]["status"], "success");
  EXPECT_EQ(results[1]["status"], "cancelled");
  EXPECT_EQ(results[1]["cancelled"], true);
  EXPECT_EQ(r.checkpoint.context["parallel.fan_in.best_id"], "a");
  EXPECT_EQ(r.checkpoint.context["parallel.branch.a.status"], "success");
  EXPECT_EQ(r.checkpoint.context["parallel.branch.b.status"], "fail");
  EXPECT_EQ(r.checkpoint.context["parallel.branch.b.notes"],
            "cancelled: another branch succeeded first (join_policy=first_success)");
}

TEST(ParallelTest, MaxParallelBoundsConcurrency) {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "par", {{"shape", "component"}, {"max_parallel", "2"}});
  node(g, "join", {{"shape", "tripleoctagon"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "par");
  for (const char* id : {"w1", "w2", "w3", "w4", "w5"}) {
    node(g, id, {{"type", "probe"}});
    edge(g, "par", id);
    edge(g, id, "join");
  }
  edge(g, "join", "exit");
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  class Probe : public Handler {
   public:
    Probe(std::atomic<int>& r, std::atomic<int>& p) : running_(r), peak_(p) {}
    Outcome execute(const NodeData&, Context&, const Graph&, const StageEnv&) override {
      int now = ++running_;
      int old = peak_.load();
      while (now > old && !peak_.compare_exchange_weak(old, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --running_;
      return Outcome::success();
    }

   private:
    std::atomic<int>& running_;
    std::atomic<int>& peak_;
  };
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("probe", std::make_shared<Probe>(running, peak));
  TestRun t;
  RunResult r = t.run(g, registry);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(peak.load(), 2);
  EXPECT_EQ(r.checkpoint.context["parallel.results"].size(), 5u);
}

}  // namespace
}  // namespace attractor
