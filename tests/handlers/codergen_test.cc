// The codergen handler with the simulation backend, and the fan-in heuristic.

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "attractor/engine/thread_sessions.h"
#include "attractor/tokens/token_counter.h"
#include "handlers/codergen.h"
#include "handlers/fan_in.h"
#include "support/handler_test_support.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {
namespace {

/// Runs node `n` once; `prior_attempts` is what the engine would count for it (StageEnv).
Outcome run_codergen(const Graph& g, Context& c, testing::StageFixture& f, std::shared_ptr<CodergenBackend> b,
                     std::int64_t prior_attempts = 0) {
  CodergenHandler h(std::move(b));
  StageEnv env = f.env("n");
  env.prior_attempts = prior_attempts;
  testing::open_stage_conversation(env, *g.node("n"), c, g);
  return h.execute(*g.node("n"), c, g, env);
}

Graph one_node(std::initializer_list<std::pair<const char*, const char*>> attrs) {
  Graph g;
  g.data().set("goal", "build a thing");
  g.add_node("n");
  for (const auto& [k, v] : attrs) g.node("n")->set(k, v);
  return g;
}

/// The `compact` preamble (the default fidelity) of node `n` of `one_node` outside the engine.
const std::string kNoHistoryPreamble =
    "## Pipeline State\n\n- Pipeline: \n- Goal: build a thing\n- Completed stages: none\n- Current stage: n\n";

TEST(CodergenTest, WritesPromptAndResponseAndSetsContextKeys) {
  testing::StageFixture f;
  Graph g = one_node({{"prompt", "Plan: $goal, then $goal"}});
  Context c;
  Outcome o = run_codergen(g, c, f, std::make_shared<SimulationBackend>());
  EXPECT_EQ(o.status, StageStatus::kSuccess);
  EXPECT_EQ(o.notes, "Stage completed: n");
  EXPECT_EQ(read_text_file(f.root() + "/n/prompt.md"),
            kNoHistoryPreamble + "\nPlan: build a thing, then build a thing");
  EXPECT_EQ(read_text_file(f.root() + "/n/response.md"), "[Simulated] Response for stage: n");
  EXPECT_EQ(o.context_updates["last_stage"], "n");
  EXPECT_EQ(o.context_updates["last_response"], "[Simulated] Response for stage: n");
  EXPECT_EQ(o.context_updates["last_model_response"], "[Simulated] Response for stage: n");
}

TEST(CodergenTest, LabelIsThePromptFallbackAndResponsesTruncateAt200) {
  testing::StageFixture f;
  std::string long_text(150, 'x');
  long_text += std::string(100, 'y');
  Graph g = one_node({{"label", "Do $goal"}, {"simulate.response", long_text.c_str()}});
  Context c;
  Outcome o = run_codergen(g, c, f, std::make_shared<SimulationBackend>());
  EXPECT_EQ(read_text_file(f.root() + "/n/prompt.md"), kNoHistoryPreamble + "\nDo build a thing");
  EXPECT_EQ(o.context_updates["last_response"], long_text.substr(0, 200));
  EXPECT_EQ(o.context_updates["last_model_response"], long_text);
  EXPECT_EQ(truncate_utf8("h\xC3\xA9llo", 2), "h\xC3\xA9");
}

TEST(CodergenTest, ScriptedOutcomesPerCall) {
  testing::StageFixture f;
  Graph g = one_node({{"simulate.outcome", "fail, success"}, {"simulate.preferred_label", "Next"}});
  Context c;
  auto backend = std::make_shared<SimulationBackend>();
  Outcome first = run_codergen(g, c, f, backend, 0);
  Outcome second = run_codergen(g, c, f, backend, 1);
  Outcome third = run_codergen(g, c, f, backend, 2);
  EXPECT_EQ(first.status, StageStatus::kFail);
  EXPECT_EQ(second.status, StageStatus::kSuccess);
  EXPECT_EQ(third.status, StageStatus::kSuccess);
  EXPECT_EQ(second.preferred_label, "Next");
  // The engine counts the calls (checkpoint `node_attempts`); the context holds no counter.
  const nlohmann::json values = c.snapshot();
  for (const auto& [key, value] : values.items()) EXPECT_FALSE(key.starts_with("internal.")) << key;
}

TEST(CodergenTest, ScriptedOutcomesSkipEmptyItemsAndRepeatTheLast) {
  testing::StageFixture f;
  Graph g = one_node({{"simulate.outcome", " retry ,, fail,\tpartial_success , "}});
  Context c;
  auto backend = std::make_shared<SimulationBackend>();
  const std::vector<StageStatus> expected = {StageStatus::kRetry, StageStatus::kFail, StageStatus::kPartialSuccess,
                                             StageStatus::kPartialSuccess, StageStatus::kPartialSuccess};
  for (std::size_t call = 0; call < expected.size(); ++call) {
    EXPECT_EQ(run_codergen(g, c, f, backend, static_cast<std::int64_t>(call)).status, expected[call]) << call;
  }
  Graph blank = one_node({{"simulate.outcome", " , "}, {"simulate.preferred_label", "Next"}});
  EXPECT_EQ(run_codergen(blank, c, f, backend, 3).status, StageStatus::kSuccess);
  Graph bad = one_node({{"simulate.outcome", "success,maybe"}});
  EXPECT_EQ(run_codergen(bad, c, f, backend, 0).status, StageStatus::kSuccess);
  EXPECT_THROW(run_codergen(bad, c, f, backend, 1), StageError);
}

TEST(CodergenTest, ResponsesFileEntries) {
  testing::StageFixture f;
  Graph g = one_node({});
  Context c;
  auto backend = std::make_shared<SimulationBackend>(
      nlohmann::json{{"n",
                      {"plain text",
                       {{"response", "r2"}, {"outcome", "partial_success"}, {"context_updates", {{"k", 1}}}},
                       {{"error", "retryable"}, {"failure_reason", "429"}}}}});
  Outcome a = run_codergen(g, c, f, backend, 0);
  EXPECT_EQ(a.context_updates["last_response"], "plain text");
  Outcome b = run_codergen(g, c, f, backend, 1);
  EXPECT_EQ(b.status, StageStatus::kPartialSuccess);
  EXPECT_EQ(b.context_updates["k"], 1);
  EXPECT_EQ(read_text_file(f.root() + "/n/response.md"), "r2");
  try {
    run_codergen(g, c, f, backend, 2);
    FAIL() << "expected a StageError";
  } catch (const StageError& e) {
    EXPECT_EQ(std::string(e.what()), "429");
    EXPECT_EQ(e.category(), ErrorCategory::kRetryable);
  }
}

TEST(FanInTest, HeuristicRanksStatusThenScoreThenId) {
  nlohmann::json results = nlohmann::json::array({
      {{"id", "c"}, {"status", "fail"}},
      {{"id", "b"}, {"status", "success"}, {"context_changes", {{"score", 1}}}},
      {{"id", "a"}, {"status", "partial_success"}, {"context_changes", {{"score", 9}}}},
      {{"id", "d"}, {"status", "success"}, {"context_changes", {{"score", "2.5"}}}},
      {{"id", "a2"}, {"status", "success"}, {"context_changes", {{"score", 2.5}}}},
  });
  EXPECT_EQ(heuristic_select(results), 4);
  EXPECT_EQ(heuristic_select(nlohmann::json::array()), -1);
}

TEST(FanInTest, SelectsBestAndFailsWhenAllFailed) {
  testing::StageFixture f;
  Graph g;
  g.add_node("join");
  FanInHandler h;
  Context c;
  EXPECT_EQ(h.execute(*g.node("join"), c, g, f.env("join")).failure_reason, "No parallel results to evaluate");
  c.set("parallel.results", nlohmann::json::array({{{"id", "x"}, {"status", "fail"}}}));
  EXPECT_EQ(h.execute(*g.node("join"), c, g, f.env("join")).failure_reason, "all parallel branches failed");
  c.set("parallel.results", nlohmann::json::array({{{"id", "x"}, {"status", "fail"}},
                                                   {{"id", "y"}, {"status", "success"}, {"last_response", "Y!"}}}));
  Outcome o = h.execute(*g.node("join"), c, g, f.env("join"));
  EXPECT_EQ(o.context_updates["parallel.fan_in.best_id"], "y");
  EXPECT_EQ(o.context_updates["parallel.fan_in.best_outcome"], "success");
  EXPECT_EQ(o.context_updates["last_response"], "Y!");
}

TEST(FanInTest, BackendRanksWhenThereIsAPrompt) {
  testing::StageFixture f;
  Graph g;
  g.add_node("join");
  g.node("join")->set("prompt", "Pick the best");
  g.node("join")->set("simulate.response", "I choose beta over alpha");
  FanInHandler h(std::make_shared<SimulationBackend>());
  Context c;
  c.set("parallel.results",
        nlohmann::json::array({{{"id", "alpha"}, {"status", "success"}}, {{"id", "beta"}, {"status", "success"}}}));
  Outcome o = h.execute(*g.node("join"), c, g, f.env("join"));
  EXPECT_EQ(o.context_updates["parallel.fan_in.best_id"], "beta");
  EXPECT_NE(read_text_file(f.root() + "/join/prompt.md").find("\"alpha\""), std::string::npos);
}

/// Records every request and answers "reply <n>".
class RecordingBackend : public CodergenBackend {
 public:
  std::string name() const override { return "recording"; }
  CodergenResult run(const CodergenRequest& request) override {
    requests.push_back(request);
    CodergenResult r;
    r.response = "reply " + std::to_string(requests.size());
    r.model = "rec-1";
    return r;
  }
  std::vector<CodergenRequest> requests;
};

TEST(CodergenSessions, FullThreadSendsHistoryAndSkipsThePreamble) {
  testing::StageFixture f;
  Graph g = one_node({{"prompt", "Work on $goal"}, {"fidelity", "full"}, {"thread_id", "coding"}});
  auto backend = std::make_shared<RecordingBackend>();
  CodergenHandler h(backend);
  ThreadSessions sessions;
  Context c;
  StageEnv env = f.env("n");
  env.fidelity = "full";
  env.thread_id = "coding";
  env.previous_node = "start";
  testing::open_stage_conversation(env, *g.node("n"), c, g, &sessions);
  Outcome first = h.execute(*g.node("n"), c, g, env);
  std::string first_prompt = read_text_file(f.root() + "/n/prompt.md");
  // A new thread opens with the summary:high preamble and no history.
  EXPECT_EQ(first_prompt.rfind("## Pipeline State (Comprehensive)\n", 0), 0u);
  EXPECT_EQ(first_prompt.substr(first_prompt.size() - 22), "\nWork on build a thing");
  EXPECT_TRUE(backend->requests[0].history.empty());
  EXPECT_EQ(backend->requests[0].prompt, first_prompt);
  EXPECT_EQ(first.stage_info["preamble_mode"], "summary:high");
  EXPECT_EQ(first.stage_info["history_messages"], 0);

  testing::open_stage_conversation(env, *g.node("n"), c, g, &sessions);
  Outcome second = h.execute(*g.node("n"), c, g, env);
  EXPECT_EQ(read_text_file(f.root() + "/n/prompt.md"), "Work on build a thing");
  EXPECT_EQ(backend->requests[1].prompt, "Work on build a thing");
  EXPECT_EQ(backend->requests[1].history, (std::vector<ChatMessage>{{"user", first_prompt}, {"assistant", "reply 1"}}));
  EXPECT_EQ(backend->requests[1].fidelity, "full");
  EXPECT_EQ(backend->requests[1].thread_id, "coding");
  EXPECT_EQ(backend->requests[1].previous_node, "start");
  EXPECT_EQ(second.stage_info["fidelity"], "full");
  EXPECT_EQ(second.stage_info["thread_id"], "coding");
  EXPECT_EQ(second.stage_info["preamble_tokens"], 0);
  EXPECT_EQ(second.stage_info["history_messages"], 2);
  ThreadSessionPtr s = sessions.find("coding");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->message_count(), 4u);
  EXPECT_EQ(s->provider(), "recording");
  EXPECT_EQ(s->model(), "rec-1");
}

TEST(CodergenSessions, FreshModesCarryThePreambleAndNeverTheHistory) {
  testing::StageFixture f;
  Graph g = one_node({{"prompt", "Deploy"}});
  auto backend = std::make_shared<RecordingBackend>();
  CodergenHandler h(backend);
  ThreadSessions sessions;
  sessions.get_or_create("coding")->append_exchange("earlier", "answer");
  Context c;
  c.set("internal.run_id", "run-9");
  StageEnv env = f.env("n");
  env.fidelity = "truncate";
  env.thread_id = "coding";
  testing::open_stage_conversation(env, *g.node("n"), c, g, &sessions);
  Outcome o = h.execute(*g.node("n"), c, g, env);
  EXPECT_EQ(read_text_file(f.root() + "/n/prompt.md"),
            "Pipeline: \nGoal: build a thing\nRun ID: run-9\nCurrent stage: n\n\nDeploy");
  EXPECT_TRUE(backend->requests[0].history.empty());
  EXPECT_EQ(sessions.find("coding")->message_count(), 2u);  // a fresh session is not stored
  EXPECT_EQ(o.stage_info["fidelity"], "truncate");
  EXPECT_EQ(o.stage_info["preamble_mode"], "truncate");
  EXPECT_EQ(
      o.stage_info["preamble_tokens"],
      token_counter_for("o200k_base")->count("Pipeline: \nGoal: build a thing\nRun ID: run-9\nCurrent stage: n\n"));
  std::vector<Event> events = f.events.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "StageUsage");
  EXPECT_EQ(events[0].fields["fidelity"], "truncate");
  EXPECT_EQ(events[0].fields["thread_id"], "coding");
  EXPECT_EQ(events[0].fields["preamble_tokens"], o.stage_info["preamble_tokens"]);
}

TEST(CodergenSessions, InvalidFidelityFallsBackToCompact) {
  testing::StageFixture f;
  Graph g = one_node({{"prompt", "X"}, {"fidelity", "everything"}});
  Context c;
  Outcome o = run_codergen(g, c, f, std::make_shared<SimulationBackend>());
  EXPECT_EQ(o.stage_info["fidelity"], "compact");
  EXPECT_EQ(read_text_file(f.root() + "/n/prompt.md"), kNoHistoryPreamble + "\nX");
}

TEST(SimulationSessions, FullThreadResponseNamesHistoryAndPreviousStage) {
  Graph g = one_node({});
  SimulationBackend b;
  CodergenRequest r;
  r.node = g.node("n");
  r.graph = &g;
  r.fidelity = "full";
  r.thread_id = "t";
  r.previous_node = "plan";
  EXPECT_EQ(b.run(r).response, "[Simulated] Response for stage: n");
  r.history = {{"user", "a"}, {"assistant", "b"}, {"user", "c"}, {"assistant", "d"}};
  EXPECT_EQ(b.run(r).response,
            "[Simulated] Response for stage: n (thread t: 4 earlier messages; previous stage: plan)");
  r.fidelity = "compact";
  EXPECT_EQ(b.run(r).response, "[Simulated] Response for stage: n");
}

}  // namespace
}  // namespace attractor
