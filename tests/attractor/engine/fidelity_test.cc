// Context fidelity (spec §5.4, docs/fidelity.md): resolution, threads and sessions, preambles in
// prompt.md, the resume rule, and what status.json and the events record.

#include <gtest/gtest.h>

#include "attractor/model/prompt_variables.h"

#include "attractor/model/fidelity.h"
#include "attractor/check/pipeline_loader.h"
#include "attractor/engine/preamble.h"
#include "attractor/run/run_directory.h"
#include "attractor/engine/thread_sessions.h"
#include "attractor/tokens/token_counter.h"
#include "support/engine_test_support.h"
#include "handlers/llm/simulation_backend.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

using namespace attractor::testing;
using Nodes = std::vector<std::string>;

Graph load_dot(const std::string& dot) {
  LoadedPipeline p = load_pipeline_text("fidelity.dot", dot, builtin_handler_catalog());
  std::string messages;
  for (const auto& d : p.diagnostics) messages += format_diagnostic(d, p.source.get());
  EXPECT_TRUE(p.ok()) << messages;
  return p.graph ? *p.graph : Graph();
}

const EdgeData* edge_between(const Graph& g, const std::string& from, const std::string& to) {
  for (Edge e : g.edges()) {
    if (g.from_id(e) == from && g.to_id(e) == to) return &g.edge(e);
  }
  return nullptr;
}

nlohmann::json status_of(const TestRun& t, const std::string& node) {
  return read_json(t.run_dir() + "/" + node + "/status.json");
}

/// Forwards to the simulation backend and cancels the run when it serves `stop_at`.
class StoppingBackend : public CodergenBackend {
 public:
  std::string name() const override { return "simulation"; }
  CodergenResult run(const CodergenRequest& request) override {
    CodergenResult r = simulation_.run(request);
    if (cancel && request.node->id == stop_at) cancel->cancel();
    return r;
  }
  std::string stop_at;
  CancelToken* cancel = nullptr;

 private:
  SimulationBackend simulation_;
};

constexpr const char* kReviewThread = R"(digraph review_loop {
  graph [goal="ship it"]
  start [shape=Mdiamond]
  plan [prompt="Plan"]
  implement [prompt="Implement", fidelity="full", thread_id="coding"]
  review [prompt="Review", fidelity="full", thread_id="coding"]
  done [shape=Msquare]
  start -> plan -> implement -> review -> done
})";

// --- Seed 004 testing requirement 1 -------------------------------------------------------------

TEST(FidelitySeed, Requirement1_FidelityPrecedenceEdgeThenNodeThenGraphThenCompact) {
  Graph g;
  node(g, "a");
  node(g, "b", {{"fidelity", "truncate"}});
  edge(g, "a", "b", {{"fidelity", "summary:low"}});
  edge(g, "b", "a");
  const EdgeData* into_b = edge_between(g, "a", "b");
  const EdgeData* into_a = edge_between(g, "b", "a");
  EXPECT_EQ(resolve_fidelity(into_b, *g.node("b"), g), "summary:low");  // edge wins
  g.data().set("default_fidelity", "summary:medium");
  EXPECT_EQ(resolve_fidelity(into_b, *g.node("b"), g), "summary:low");
  EXPECT_EQ(resolve_fidelity(nullptr, *g.node("b"), g), "truncate");       // node over graph
  EXPECT_EQ(resolve_fidelity(into_a, *g.node("a"), g), "summary:medium");  // graph default
  g.data().attrs.erase("default_fidelity");
  EXPECT_EQ(resolve_fidelity(into_a, *g.node("a"), g), "compact");  // system default
  EXPECT_EQ(resolve_fidelity(nullptr, *g.node("a"), g), "compact");
}

// --- Requirement 2 ------------------------------------------------------------------------------

TEST(FidelitySeed, Requirement2_ThreadPrecedenceNodeEdgeGraphSubgraphClassPreviousNode) {
  Graph g = load_dot(R"(digraph T {
    start [shape=Mdiamond]; done [shape=Msquare]
    subgraph cluster_loop {
      label="Review Loop"
      own [thread_id="mine", prompt="x"]
      plain [prompt="x"]
    }
    loose [prompt="x"]
    start -> own -> plain -> loose -> done
    plain -> own [thread_id="from-edge"]
    own -> loose [thread_id="edge-thread"]
  })");
  const NodeData& own = *g.node("own");
  const NodeData& plain = *g.node("plain");
  const NodeData& loose = *g.node("loose");
  // 1. node thread_id beats the edge's
  EXPECT_EQ(resolve_thread_id(edge_between(g, "plain", "own"), own, g, "plain"), "mine");
  // 2. edge thread_id beats subgraph class and previous node
  EXPECT_EQ(resolve_thread_id(edge_between(g, "own", "loose"), loose, g, "own"), "edge-thread");
  // 4. the class derived from the enclosing subgraph label
  EXPECT_EQ(resolve_thread_id(edge_between(g, "own", "plain"), plain, g, "own"), "review-loop");
  // 5. previous node id
  EXPECT_EQ(resolve_thread_id(edge_between(g, "plain", "loose"), loose, g, "plain"), "plain");
  EXPECT_EQ(resolve_thread_id(nullptr, loose, g, ""), "");
  // 3. the graph-level default thread sits between the edge and the subgraph class
  g.data().set("default_thread_id", "main");
  EXPECT_EQ(resolve_thread_id(edge_between(g, "own", "plain"), plain, g, "own"), "main");
  EXPECT_EQ(resolve_thread_id(edge_between(g, "plain", "loose"), loose, g, "plain"), "main");
  EXPECT_EQ(resolve_thread_id(edge_between(g, "own", "loose"), loose, g, "own"), "edge-thread");
  EXPECT_EQ(resolve_thread_id(nullptr, own, g, ""), "mine");
}

// --- Requirement 3 ------------------------------------------------------------------------------

TEST(FidelitySeed, Requirement3_EachModeBuildsItsPreamble) {
  Graph g = load_dot(kReviewThread);
  Context c;
  c.set("internal.run_id", "r-7");
  c.set("graph.goal", "ship it");
  c.set("outcome", "success");
  c.set("tests", "3 passed");
  StageHistory history;
  history.add(make_stage_record(*g.node("start"), "start", Outcome::success("Pipeline started at start"), 1, 1, 0));
  history.add(make_stage_record(*g.node("plan"), "codergen", Outcome::success("Stage completed: plan"), 1, 1, 2000));
  PreambleInput in = gather_preamble_input(*g.node("implement"), c, g, &history);
  EXPECT_EQ(in.run_id, "r-7");
  EXPECT_EQ(in.stage_number, 2);
  EXPECT_EQ(in.total_stages, 3);
  EXPECT_EQ(in.context, (nlohmann::json{{"tests", "3 passed"}}));
  auto counter = token_counter_for("o200k_base");
  EXPECT_EQ(build_preamble("truncate", in, *counter).text,
            "Pipeline: review_loop\nGoal: ship it\nRun ID: r-7\nCurrent stage: implement\n");
  EXPECT_EQ(build_preamble("compact", in, *counter).text,
            "## Pipeline State\n\n- Pipeline: review_loop\n- Goal: ship it\n"
            "- Completed stages: start (success), plan (success)\n- Current stage: implement\n"
            "- Key context values:\n  - tests: \"3 passed\"\n");
  EXPECT_EQ(
      build_preamble("summary:low", in, *counter).text,
      "Pipeline \"review_loop\" stage 2 of 3. Goal: ship it.\nCompleted: start, plan. Last outcome: success (plan).\n"
      "Events: 2 stages run (2 succeeded, 0 failed), 0 retries.\n");
  EXPECT_EQ(
      build_preamble("summary:medium", in, *counter).text,
      "## Pipeline Progress\n\nPipeline: review_loop\nGoal: ship it\nStage: implement (2/3)\n\n"
      "### Recent Activity\n- start: success — Pipeline started at start\n- plan: success — Stage completed: plan\n\n"
      "### Active Context\n- tests: \"3 passed\"\n");
  EXPECT_EQ(build_preamble("summary:high", in, *counter).text,
            "## Pipeline State (Comprehensive)\n\nPipeline: review_loop\nGoal: ship it\nRun ID: r-7\n"
            "Stage: implement (2/3)\n\n### Execution History\n"
            "- start: success — Pipeline started at start\n  Tools used: none\n  Duration: 0ms\n"
            "- plan: success — Stage completed: plan\n  Tools used: none\n  Duration: 2.0s\n\n"
            "### Full Context\n```json\n{\n  \"tests\": \"3 passed\"\n}\n```\n\n### Retry Information\n- none\n");
}

TEST(FidelitySeed, PreamblesLeaveOutWhatThePromptCarriesAndWhatHandlersMarked) {
  Graph g = load_dot(R"(digraph p {
    start [shape=Mdiamond]; done [shape=Msquare]
    answer [prompt="Evidence: ${context_blocks} Question: ${question} Literal: $${not_a_key}"]
    start -> answer -> done
  })");
  Context c;
  c.set("context_blocks", nlohmann::json::array({"block"}));
  c.set("question", "why?");
  c.set("not_a_key", "shown");
  c.set("graph_edges", nlohmann::json::array());
  c.set("repository", "acme");
  c.set("internal.preamble_hidden_keys", nlohmann::json::array({"graph_edges"}));
  PreambleInput in = gather_preamble_input(*g.node("answer"), c, g, nullptr);
  EXPECT_EQ(in.context, (nlohmann::json{{"not_a_key", "shown"}, {"repository", "acme"}}));
  EXPECT_EQ(prompt_variable_keys("a ${x} $${y} ${x} ${not key} ${z.w-1}"), (std::vector<std::string>{"x", "z.w-1"}));
}

// --- Requirement 4 ------------------------------------------------------------------------------

TEST(FidelitySeed, Requirement4_LongHistoriesAreCutToTheBudgetOldestFirst) {
  Graph g = load_dot(kReviewThread);
  Context c;
  StageHistory history;
  for (int i = 0; i < 300; ++i) {
    NodeData n;
    n.id = "step" + std::to_string(i);
    history.add(make_stage_record(n, "codergen", Outcome::success("notes for step " + std::to_string(i)), 1, 1, 10));
  }
  auto counter = token_counter_for("o200k_base");
  PreambleInput in = gather_preamble_input(*g.node("review"), c, g, &history);
  for (const char* mode : {"compact", "summary:low", "summary:medium", "summary:high"}) {
    Preamble p = build_preamble(mode, in, *counter);
    EXPECT_LE(p.tokens, preamble_budget(mode)) << mode;
    EXPECT_GT(p.omitted_stages, 0u) << mode;
    EXPECT_NE(p.text.find("step299"), std::string::npos) << mode;
    EXPECT_EQ(p.text.find("step0,"), std::string::npos) << mode;
    EXPECT_EQ(p.text.find("step0 "), std::string::npos) << mode;
    EXPECT_EQ(p.text.find("step0:"), std::string::npos) << mode;
  }
}

// --- Requirement 5 ------------------------------------------------------------------------------

TEST(FidelitySeed, Requirement5_FirstFullStageAfterResumeRunsAsSummaryHighOnce) {
  Graph g = load_dot(R"(digraph resume_thread {
    graph [goal="fix the bug"]
    start [shape=Mdiamond]; done [shape=Msquare]
    implement [prompt="Implement", fidelity="full", thread_id="coding"]
    review [prompt="Review", fidelity="full", thread_id="coding"]
    fix [prompt="Fix", fidelity="full", thread_id="coding"]
    polish [prompt="Polish", fidelity="full", thread_id="coding"]
    start -> implement -> review -> fix -> polish -> done
  })");
  TestRun t;
  auto backend = std::make_shared<StoppingBackend>();
  backend->stop_at = "review";
  backend->cancel = &t.cancel;
  t.services.backend = backend;
  RunResult first = t.run(g);
  ASSERT_TRUE(first.interrupted);
  Checkpoint cp = load_checkpoint(t.run_dir());
  EXPECT_EQ(cp.completed_nodes, (Nodes{"start", "implement"}));
  // What the resume decision needs: the last stage's fidelity and the threads that had sessions.
  EXPECT_EQ(cp.last_fidelity, "full");
  EXPECT_EQ(cp.context.at("internal.thread_sessions"), (nlohmann::json{"coding"}));

  backend->cancel = nullptr;
  t.cancel = CancelToken();
  RunResult resumed = t.resume(g);
  ASSERT_EQ(resumed.outcome.status, StageStatus::kSuccess) << resumed.outcome.failure_reason;
  nlohmann::json review = status_of(t, "review");
  EXPECT_EQ(review["fidelity"], "summary:high");
  EXPECT_EQ(review["history_messages"], 0);
  EXPECT_EQ(review["preamble_mode"], "summary:high");
  EXPECT_GT(review["preamble_tokens"].get<int>(), 0);
  // The next full stage starts a new session of the thread (the old one was lost) ...
  nlohmann::json fix = status_of(t, "fix");
  EXPECT_EQ(fix["fidelity"], "full");
  EXPECT_EQ(fix["history_messages"], 0);
  // ... which the one after continues.
  nlohmann::json polish = status_of(t, "polish");
  EXPECT_EQ(polish["fidelity"], "full");
  EXPECT_EQ(polish["history_messages"], 2);
  EXPECT_EQ(polish["preamble_tokens"], 0);
  EXPECT_EQ(read_text_file(t.run_dir() + "/polish/response.md"),
            "[Simulated] Response for stage: polish (thread coding: 2 earlier messages; previous stage: fix)");
  // The degraded stage's preamble carries the history restored from the checkpoint.
  std::string prompt = read_text_file(t.run_dir() + "/review/prompt.md");
  EXPECT_EQ(prompt.rfind("## Pipeline State (Comprehensive)\n", 0), 0u);
  EXPECT_NE(prompt.find("- implement: success\n  Tools used: none\n  Duration: unknown\n"), std::string::npos);
  EXPECT_EQ(prompt.substr(prompt.size() - 7), "\nReview");
}

TEST(FidelityResume, NoDegradeWhenNoSessionWasLost) {
  Graph g = load_dot(R"(digraph fresh {
    start [shape=Mdiamond]; done [shape=Msquare]
    plan [prompt="Plan"]
    implement [prompt="Implement", fidelity="full", thread_id="coding"]
    start -> plan -> implement -> done
  })");
  TestRun t;
  auto backend = std::make_shared<StoppingBackend>();
  backend->stop_at = "implement";  // interrupted inside implement: only `plan` (compact) completed
  backend->cancel = &t.cancel;
  t.services.backend = backend;
  ASSERT_TRUE(t.run(g).interrupted);
  EXPECT_EQ(load_checkpoint(t.run_dir()).last_fidelity, "compact");
  backend->cancel = nullptr;
  t.cancel = CancelToken();
  ASSERT_EQ(t.resume(g).outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(status_of(t, "implement")["fidelity"], "full");
}

TEST(FidelityResume, DegradeWaitsForTheFirstFullLlmStage) {
  // The stage after the resume is a tool stage; the first full LLM stage after it degrades.
  Graph g = load_dot(R"(digraph later {
    start [shape=Mdiamond]; done [shape=Msquare]
    implement [prompt="Implement", fidelity="full", thread_id="coding"]
    check [shape=parallelogram, tool_command="true"]
    review [prompt="Review", fidelity="full", thread_id="coding"]
    again [prompt="Again", fidelity="full", thread_id="coding"]
    start -> implement -> check -> review -> again -> done
  })");
  TestRun t;
  RunResult whole = t.run(g);
  ASSERT_EQ(whole.outcome.status, StageStatus::kSuccess);
  // Rewind to the checkpoint after `implement`: the context lists the coding thread.
  Checkpoint cp = load_checkpoint(t.run_dir());
  cp.completed_nodes = {"start", "implement"};
  cp.current_node = "implement";
  cp.next_node = "check";
  cp.state = "running";
  cp.final_outcome = nullptr;
  cp.total_executions = 2;
  cp.last_fidelity = "compact";  // only the thread list tells that a session existed
  save_checkpoint(cp, t.run_dir());
  ASSERT_EQ(t.resume(g).outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(status_of(t, "review")["fidelity"], "summary:high");
  EXPECT_EQ(status_of(t, "again")["fidelity"], "full");
}

// --- Requirements 6 and 7 -----------------------------------------------------------------------

TEST(FidelitySeed, Requirement6_SameThreadIdReusesTheSession) {
  ThreadSessions sessions;
  ThreadSessionPtr a = sessions.get_or_create("coding");
  a->append_exchange("Implement", "done");
  a->set_backend("simulation", "sim-1");
  ThreadSessionPtr again = sessions.get_or_create("coding");
  EXPECT_EQ(again.get(), a.get());
  EXPECT_EQ(sessions.find("coding").get(), a.get());
  EXPECT_EQ(again->messages(), (std::vector<ChatMessage>{{"user", "Implement"}, {"assistant", "done"}}));
  EXPECT_EQ(again->provider(), "simulation");
  EXPECT_EQ(again->model(), "sim-1");
  EXPECT_EQ(sessions.size(), 1u);

  // In a run: review continues implement's conversation.
  TestRun t;
  RunResult r = t.run(load_dot(kReviewThread));
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(read_text_file(t.run_dir() + "/review/response.md"),
            "[Simulated] Response for stage: review (thread coding: 2 earlier messages; previous stage: implement)");
  nlohmann::json review = status_of(t, "review");
  EXPECT_EQ(review["fidelity"], "full");
  EXPECT_EQ(review["thread_id"], "coding");
  EXPECT_EQ(review["history_messages"], 2);
  EXPECT_EQ(review["preamble_tokens"], 0);
  EXPECT_EQ(review["preamble_mode"], "");
}

TEST(FidelitySeed, Requirement7_DifferentThreadIdStartsANewSession) {
  ThreadSessions sessions;
  ThreadSessionPtr a = sessions.get_or_create("coding");
  ThreadSessionPtr b = sessions.get_or_create("docs");
  EXPECT_NE(a.get(), b.get());
  a->append_exchange("q", "r");
  EXPECT_EQ(b->message_count(), 0u);
  EXPECT_EQ(sessions.find("missing"), nullptr);
  EXPECT_EQ(sessions.thread_ids(), (std::vector<std::string>{"coding", "docs"}));

  std::string dot = kReviewThread;
  dot.replace(dot.find("review [prompt=\"Review\", fidelity=\"full\", thread_id=\"coding\"]"),
              std::string("review [prompt=\"Review\", fidelity=\"full\", thread_id=\"coding\"]").size(),
              "review [prompt=\"Review\", fidelity=\"full\", thread_id=\"docs\"]");
  TestRun t;
  ASSERT_EQ(t.run(load_dot(dot)).outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(read_text_file(t.run_dir() + "/review/response.md"), "[Simulated] Response for stage: review");
  nlohmann::json review = status_of(t, "review");
  EXPECT_EQ(review["thread_id"], "docs");
  EXPECT_EQ(review["history_messages"], 0);
  EXPECT_EQ(review["preamble_mode"], "summary:high");
  EXPECT_GT(review["preamble_tokens"].get<int>(), 0);
}

// --- Requirement 8 ------------------------------------------------------------------------------

TEST(FidelitySeed, Requirement8_DotParsingOfFidelityAndThreadAttributes) {
  Graph g = load_dot(read_text_file(std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/fidelity.dot"));
  EXPECT_EQ(g.data().default_fidelity(), "compact");
  EXPECT_EQ(g.node("analyze")->fidelity(), "summary:medium");
  EXPECT_EQ(g.node("implement")->fidelity(), "full");
  EXPECT_EQ(g.node("implement")->thread_id(), "coding");
  EXPECT_EQ(g.node("review")->thread_id(), "coding");
  EXPECT_EQ(g.node("deploy")->fidelity(), "truncate");
  EXPECT_EQ(g.node("start")->fidelity(), "");
  EXPECT_EQ(edge_between(g, "implement", "review")->fidelity(), "full");
  EXPECT_EQ(edge_between(g, "review", "deploy")->fidelity(), "truncate");
  EXPECT_EQ(edge_between(g, "analyze", "implement")->fidelity(), "");
  Graph h = load_dot(R"(digraph P { graph [default_fidelity="summary:low", default_thread_id="main"]
    start [shape=Mdiamond]; done [shape=Msquare]; a [prompt="a"]
    start -> a [fidelity="full", thread_id="t1"]; a -> done })");
  EXPECT_EQ(h.data().default_fidelity(), "summary:low");
  EXPECT_EQ(h.data().get("default_thread_id"), "main");
  EXPECT_EQ(edge_between(h, "start", "a")->thread_id(), "t1");
  EXPECT_EQ(resolve_fidelity(edge_between(h, "start", "a"), *h.node("a"), h), "full");
  EXPECT_EQ(resolve_fidelity(edge_between(h, "a", "done"), *h.node("done"), h), "summary:low");
}

// --- The engine end to end ----------------------------------------------------------------------

TEST(FidelityEngine, PromptFilesCarryThePreambleOfFreshSessionsOnly) {
  TestRun t;
  RunResult r = t.run(load_dot(kReviewThread));
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(read_text_file(t.run_dir() + "/plan/prompt.md"),
            "## Pipeline State\n\n- Pipeline: review_loop\n- Goal: ship it\n- Completed stages: start (success)\n"
            "- Current stage: plan\n\nPlan");
  EXPECT_EQ(
      read_text_file(t.run_dir() + "/implement/prompt.md"),
      "## Pipeline State (Comprehensive)\n\nPipeline: review_loop\nGoal: ship it\nRun ID: " + r.checkpoint.run_id +
          "\nStage: implement (2/3)\n\n### Execution History\n"
          "- start: success — Pipeline started at start\n  Tools used: none\n  Duration: 0ms\n"
          "- plan: success — Stage completed: plan\n  Tools used: none\n  Duration: 0ms\n\n"
          "### Full Context\n```json\n{\n  \"last_response\": \"[Simulated] Response for stage: plan\"\n}\n```\n\n"
          "### Retry Information\n- none\n\nImplement");
  EXPECT_EQ(read_text_file(t.run_dir() + "/review/prompt.md"), "Review");
  nlohmann::json plan = status_of(t, "plan");
  EXPECT_EQ(plan["fidelity"], "compact");
  EXPECT_EQ(plan["thread_id"], "start");
  EXPECT_EQ(plan["preamble_mode"], "compact");
  auto counter = token_counter_for("o200k_base");
  std::string plan_prompt = read_text_file(t.run_dir() + "/plan/prompt.md");
  EXPECT_EQ(plan["preamble_tokens"], counter->count(plan_prompt.substr(0, plan_prompt.size() - 5)));
  EXPECT_EQ(status_of(t, "implement")["history_messages"], 0);
}

TEST(FidelityEngine, EventsRecordFidelityThreadAndPreambleTokens) {
  TestRun t;
  ASSERT_EQ(t.run(load_dot(kReviewThread)).outcome.status, StageStatus::kSuccess);
  std::map<std::string, nlohmann::json> completed, usage;
  for (const Event& e : t.events->events()) {
    if (e.name == "StageCompleted") completed[e.fields["name"]] = e.fields;
    if (e.name == "StageUsage") usage[e.fields["name"]] = e.fields;
  }
  EXPECT_EQ(completed["review"]["fidelity"], "full");
  EXPECT_EQ(completed["review"]["thread_id"], "coding");
  EXPECT_EQ(completed["review"]["preamble_tokens"], 0);
  EXPECT_EQ(completed["plan"]["fidelity"], "compact");
  EXPECT_EQ(completed["plan"]["preamble_tokens"], status_of(t, "plan")["preamble_tokens"]);
  EXPECT_FALSE(completed["start"].contains("fidelity"));  // not an LLM stage
  EXPECT_EQ(usage["implement"]["fidelity"], "full");
  EXPECT_EQ(usage["implement"]["thread_id"], "coding");
  EXPECT_EQ(usage["implement"]["preamble_tokens"], status_of(t, "implement")["preamble_tokens"]);
}

TEST(FidelityEngine, EdgeFidelityAndThreadReachTheStage) {
  Graph g = load_dot(R"(digraph E {
    start [shape=Mdiamond]; done [shape=Msquare]
    a [prompt="A", fidelity="full"]
    b [prompt="B"]
    c [prompt="C", fidelity="full"]
    start -> a
    a -> b [fidelity="full", thread_id="shared"]
    b -> c [thread_id="shared"]
    c -> done
  })");
  TestRun t;
  ASSERT_EQ(t.run(g).outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(status_of(t, "a")["thread_id"], "start");  // previous node
  EXPECT_EQ(status_of(t, "b")["fidelity"], "full");
  EXPECT_EQ(status_of(t, "b")["thread_id"], "shared");
  EXPECT_EQ(status_of(t, "b")["history_messages"], 0);
  EXPECT_EQ(status_of(t, "c")["thread_id"], "shared");
  EXPECT_EQ(status_of(t, "c")["history_messages"], 2);
  EXPECT_EQ(read_text_file(t.run_dir() + "/c/response.md"),
            "[Simulated] Response for stage: c (thread shared: 2 earlier messages; previous stage: b)");
}

TEST(FidelityEngine, TruncateStagePromptHasOnlyTheMinimalPreamble) {
  Graph g = load_dot(R"(digraph T { graph [goal="g"]
    start [shape=Mdiamond]; done [shape=Msquare]
    deploy [prompt="Deploy", fidelity="truncate"]
    start -> deploy -> done })");
  TestRun t;
  RunResult r = t.run(g);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(read_text_file(t.run_dir() + "/deploy/prompt.md"),
            "Pipeline: T\nGoal: g\nRun ID: " + r.checkpoint.run_id + "\nCurrent stage: deploy\n\nDeploy");
}

TEST(FidelityEngine, SeedExampleRunsInSimulation) {
  Graph g = load_dot(read_text_file(std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/fidelity.dot"));
  TestRun t;
  RunResult r = t.run(g, nlohmann::json{{"review_passed", true}});
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(r.checkpoint.completed_nodes, (Nodes{"start", "analyze", "implement", "review", "deploy"}));
  EXPECT_EQ(status_of(t, "analyze")["fidelity"], "summary:medium");
  EXPECT_EQ(status_of(t, "implement")["fidelity"], "full");
  EXPECT_EQ(status_of(t, "review")["fidelity"], "full");
  EXPECT_EQ(status_of(t, "review")["thread_id"], "coding");
  EXPECT_EQ(status_of(t, "deploy")["fidelity"], "truncate");
}

}  // namespace
}  // namespace attractor
