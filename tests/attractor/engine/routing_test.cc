// Condition evaluation (§10.4-10.5), label normalization and the five-step edge selection (§3.3),
// retry policies (§3.5-3.6 as decided in docs/decisions.md).

#include <gtest/gtest.h>

#include "attractor/check/pipeline_loader.h"
#include "attractor/engine/edge_selection.h"
#include "attractor/engine/retry.h"
#include "handlers/registry.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

using testing::edge;
using testing::node;

std::string selected(const Graph& g, const std::string& from, const Outcome& o, const Context& c,
                     EdgeSelectionMode mode = EdgeSelectionMode::kAll) {
  auto e = select_edge(g, *g.find(from), o, c, mode);
  return e ? g.to_id(*e) : "<none>";
}

TEST(ConditionTest, ResolvesKeysPerSection10_4) {
  Context c;
  c.set("context.tests_passed", true);
  c.set("retries", 3);
  c.set("plain", "v");
  Outcome o = Outcome::fail("x");
  o.preferred_label = "Fix";
  EXPECT_EQ(resolve_condition_key("outcome", o, c), "fail");
  EXPECT_EQ(resolve_condition_key("preferred_label", o, c), "Fix");
  EXPECT_EQ(resolve_condition_key("context.tests_passed", o, c), "true");
  EXPECT_EQ(resolve_condition_key("context.retries", o, c), "3");  // falls back to the unprefixed key
  EXPECT_EQ(resolve_condition_key("plain", o, c), "v");
  EXPECT_EQ(resolve_condition_key("context.missing", o, c), "");
}

TEST(ConditionTest, EvaluatesAgainstOutcomeAndContext) {
  Context c;
  c.set("n", 3);
  c.set("flag", "false");
  Outcome ok;
  EXPECT_TRUE(evaluate_edge_condition("", ok, c));
  EXPECT_TRUE(evaluate_edge_condition("outcome=success", ok, c));
  EXPECT_FALSE(evaluate_edge_condition("outcome=fail", ok, c));
  EXPECT_TRUE(evaluate_edge_condition("outcome!=fail && context.n=3", ok, c));
  EXPECT_FALSE(evaluate_edge_condition("outcome=success && context.n=4", ok, c));
  EXPECT_FALSE(evaluate_edge_condition("context.flag", ok, c));
  EXPECT_FALSE(evaluate_edge_condition("context.missing=x", ok, c));
  EXPECT_TRUE(evaluate_edge_condition("context.missing!=x", ok, c));
  EXPECT_FALSE(evaluate_edge_condition("outcome==", ok, c));  // unparsable: never eligible
}

TEST(LabelTest, AcceleratorKeysAndNormalization) {
  EXPECT_EQ(accelerator_key("[Y] Yes, deploy"), "Y");
  EXPECT_EQ(accelerator_key("Y) Yes, deploy"), "Y");
  EXPECT_EQ(accelerator_key("Y - Yes, deploy"), "Y");
  EXPECT_EQ(accelerator_key("yes, deploy"), "Y");
  EXPECT_EQ(accelerator_key(""), "");
  EXPECT_EQ(normalize_label("  [Y] Yes, Deploy "), "yes, deploy");
  EXPECT_EQ(normalize_label("Y) Yes, deploy"), "yes, deploy");
  EXPECT_EQ(normalize_label("Y - Yes, deploy"), "yes, deploy");
  EXPECT_EQ(normalize_label("Fix"), "fix");
}

Graph fan() {
  Graph g;
  node(g, "n");
  for (const char* t : {"a", "b", "c", "d"}) node(g, t);
  return g;
}

// Conditions are parsed once, when the pipeline is loaded, and kept on the edge; selection
// evaluates that parse (here replaced on purpose by one that differs from the text), and parses
// the text itself only when it is no longer the text the edge was loaded with.
TEST(EdgeSelectionTest, EvaluatesTheConditionParsedAtLoad) {
  LoadedPipeline p = load_pipeline_text("c.dot", R"(digraph c {
    start [shape=Mdiamond]; exit [shape=Msquare]; a; b
    start -> a
    a -> b [condition="outcome=success"]
    a -> exit [condition="outcome=fail"]
    b -> exit
  })",
                                        builtin_handler_catalog());
  ASSERT_TRUE(p.ok());
  Graph& g = *p.graph;
  Edge to_b = g.out_edges(*g.find("a")).front();
  ASSERT_EQ(g.to_id(to_b), "b");
  const EdgeData& loaded = g.edge(to_b);
  ASSERT_TRUE(loaded.parsed_condition && loaded.parsed_condition->condition);
  EXPECT_EQ(loaded.parsed_condition->text, "outcome=success");
  ASSERT_EQ(loaded.parsed_condition->condition->clauses.size(), 1u);
  EXPECT_EQ(loaded.parsed_condition->condition->clauses[0].literal, "success");
  EXPECT_EQ(g.edge(g.out_edges(*g.find("start")).front()).parsed_condition, nullptr);
  Context c;
  EXPECT_EQ(selected(g, "a", Outcome::success(), c), "b");

  auto swapped = std::make_shared<EdgeCondition>(*loaded.parsed_condition);
  swapped->condition->clauses[0].literal = "partial_success";
  g.edge(to_b).parsed_condition = swapped;
  EXPECT_EQ(selected(g, "a", Outcome::success(), c), "<none>") << "the text was parsed again";
  g.edge(to_b).set("condition", "outcome!=fail");
  EXPECT_EQ(selected(g, "a", Outcome::success(), c), "b") << "a changed text is parsed when read";
}

TEST(EdgeSelectionTest, ConditionMatchWinsOverWeight) {
  Graph g = fan();
  edge(g, "n", "a", {{"weight", "100"}});
  edge(g, "n", "b", {{"condition", "outcome=success"}});
  Context c;
  EXPECT_EQ(selected(g, "n", Outcome::success(), c), "b");
}

TEST(EdgeSelectionTest, MatchingConditionsUseWeightThenLexical) {
  Graph g = fan();
  edge(g, "n", "c", {{"condition", "outcome=success"}});
  edge(g, "n", "b", {{"condition", "outcome=success"}});
  edge(g, "n", "d", {{"condition", "outcome=success"}, {"weight", "-1"}});
  Context c;
  EXPECT_EQ(selected(g, "n", Outcome::success(), c), "b");
}

TEST(EdgeSelectionTest, PreferredLabelWithAcceleratorPrefixes) {
  Graph g = fan();
  edge(g, "n", "a", {{"label", "[A] Approve"}});
  edge(g, "n", "b", {{"label", "R) Reject"}, {"weight", "5"}});
  Context c;
  Outcome o;
  o.preferred_label = "approve";
  EXPECT_EQ(selected(g, "n", o, c), "a");
  o.preferred_label = "[R] reject";
  EXPECT_EQ(selected(g, "n", o, c), "b");
}

TEST(EdgeSelectionTest, PreferredLabelIgnoresConditionalEdges) {
  Graph g = fan();
  edge(g, "n", "a", {{"label", "Go"}, {"condition", "outcome=fail"}});
  edge(g, "n", "b");
  Context c;
  Outcome o;
  o.preferred_label = "Go";
  EXPECT_EQ(selected(g, "n", o, c), "b");
}

TEST(EdgeSelectionTest, SuggestedNextIdsInOrder) {
  Graph g = fan();
  edge(g, "n", "a", {{"weight", "9"}});
  edge(g, "n", "b");
  edge(g, "n", "c");
  Context c;
  Outcome o;
  o.suggested_next_ids = {"x", "c", "b"};
  EXPECT_EQ(selected(g, "n", o, c), "c");
  o.preferred_label = "no such label";
  EXPECT_EQ(selected(g, "n", o, c), "c");
}

TEST(EdgeSelectionTest, WeightBreaksTiesThenLexical) {
  Graph g = fan();
  edge(g, "n", "c", {{"weight", "2"}});
  edge(g, "n", "a", {{"weight", "1"}});
  edge(g, "n", "b", {{"weight", "2"}});
  Context c;
  EXPECT_EQ(selected(g, "n", Outcome::success(), c), "b");
  Graph h = fan();
  edge(h, "n", "d");
  edge(h, "n", "b");
  edge(h, "n", "c");
  EXPECT_EQ(selected(h, "n", Outcome::success(), c), "b");
}

TEST(EdgeSelectionTest, NoEdgesOrOnlyFailingConditions) {
  Graph g = fan();
  Context c;
  EXPECT_EQ(selected(g, "n", Outcome::success(), c), "<none>");
  edge(g, "n", "a", {{"condition", "outcome=fail"}});
  EXPECT_EQ(selected(g, "n", Outcome::success(), c), "<none>");
}

TEST(EdgeSelectionTest, FailureRoutingUsesConditionsOnly) {
  Graph g = fan();
  edge(g, "n", "a");
  Context c;
  EXPECT_EQ(selected(g, "n", Outcome::fail("x"), c, EdgeSelectionMode::kConditionsOnly), "<none>");
  edge(g, "n", "b", {{"condition", "outcome=fail"}});
  EXPECT_EQ(selected(g, "n", Outcome::fail("x"), c, EdgeSelectionMode::kConditionsOnly), "b");
}

std::vector<std::int64_t> delays(const RetryPolicy& p, double r) {
  std::vector<std::int64_t> out;
  UniformRandom random = [r] { return r; };
  for (std::int64_t a = 1; a <= p.max_attempts; ++a) out.push_back(p.delay_for_attempt(a, random));
  return out;
}

TEST(RetryPolicyTest, PresetsMatchTheSpecTable) {
  EXPECT_EQ(retry_preset("none")->max_attempts, 1);
  EXPECT_EQ(delays(*retry_preset("standard"), 0.5), (std::vector<std::int64_t>{200, 400, 800, 1600, 3200}));
  EXPECT_EQ(delays(*retry_preset("aggressive"), 0.5), (std::vector<std::int64_t>{500, 1000, 2000, 4000, 8000}));
  EXPECT_EQ(delays(*retry_preset("linear"), 0.5), (std::vector<std::int64_t>{500, 500, 500}));
  EXPECT_EQ(delays(*retry_preset("patient"), 0.5), (std::vector<std::int64_t>{2000, 6000, 18000}));
  EXPECT_FALSE(retry_preset("bogus"));
}

TEST(RetryPolicyTest, JitterScalesBetweenHalfAndOneAndAHalf) {
  RetryPolicy p = *retry_preset("standard");
  EXPECT_EQ(delays(p, 0.0), (std::vector<std::int64_t>{100, 200, 400, 800, 1600}));
  EXPECT_EQ(delays(p, 0.999)[0], 300);
  p.backoff.jitter = false;
  EXPECT_EQ(delays(p, 0.0)[4], 3200);
}

TEST(RetryPolicyTest, DelayIsCapped) {
  RetryPolicy p;
  p.max_attempts = 20;
  p.backoff = {1000, 10.0, 60000, false};
  EXPECT_EQ(p.delay_for_attempt(3, nullptr), 60000);
}

TEST(RetryPolicyTest, AttemptsPrecedence) {
  Graph g;
  node(g, "a");
  node(g, "b", {{"max_retries", "3"}});
  node(g, "c", {{"retry_policy", "patient"}});
  node(g, "d", {{"retry_policy", "standard"}, {"max_retries", "1"}});
  EXPECT_EQ(build_retry_policy(*g.node("a"), g.data()).max_attempts, 1);
  g.data().set("default_max_retry", "2");  // legacy alias
  EXPECT_EQ(build_retry_policy(*g.node("a"), g.data()).max_attempts, 3);
  g.data().set("default_max_retries", "4");
  EXPECT_EQ(build_retry_policy(*g.node("a"), g.data()).max_attempts, 5);
  EXPECT_EQ(build_retry_policy(*g.node("b"), g.data()).max_attempts, 4);
  RetryPolicy c = build_retry_policy(*g.node("c"), g.data());
  EXPECT_EQ(c.max_attempts, 3);
  EXPECT_EQ(c.backoff.initial_delay_ms, 2000);
  EXPECT_EQ(build_retry_policy(*g.node("d"), g.data()).max_attempts, 2);
}

TEST(RetryPolicyTest, ShouldRetryFollowsDesign) {
  EXPECT_TRUE(should_retry(Outcome::fail("x")));
  EXPECT_TRUE(should_retry(Outcome::retry("x")));
  EXPECT_FALSE(should_retry(Outcome::fail("401", ErrorCategory::kTerminal)));
  EXPECT_FALSE(should_retry(Outcome::fail("no start", ErrorCategory::kPipeline)));
  EXPECT_FALSE(should_retry(Outcome::success()));
}

}  // namespace
}  // namespace attractor
