#include "attractor/check/lint.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "support/lint_test_support.h"
#include "support/registration_scope.h"

#include "attractor/model/node_roles.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

using lint_test::at;
using lint_test::expect_diagnostic;
using lint_test::only;
using lint_test::valid_pipeline;

TEST(Lint, ValidPipelineHasNoDiagnostics) {
  EXPECT_TRUE(validate(valid_pipeline(), builtin_handler_catalog()).empty());
}

TEST(Lint, BuiltinRuleNamesInOrder) {
  EXPECT_EQ(builtin_lint_rule_names(), (std::vector<std::string>{"start_node",
                                                                 "terminal_node",
                                                                 "reachability",
                                                                 "exit_reachable",
                                                                 "dead_end",
                                                                 "edge_target_exists",
                                                                 "start_no_incoming",
                                                                 "exit_no_outgoing",
                                                                 "condition_syntax",
                                                                 "condition_outcome_value",
                                                                 "condition_key_spelling",
                                                                 "stylesheet_syntax",
                                                                 "type_known",
                                                                 "shape_known",
                                                                 "fidelity_valid",
                                                                 "thread_id_fidelity",
                                                                 "sandbox_literal",
                                                                 "worktree_parallel",
                                                                 "retry_target_exists",
                                                                 "goal_gate_has_retry",
                                                                 "prompt_on_llm_nodes",
                                                                 "outgoing_route_targets",
                                                                 "from_settings_exists",
                                                                 "attribute_type",
                                                                 "attribute_spelling",
                                                                 "compact_code_rules",
                                                                 "context_budget_settings"}));
}

TEST(NodeRoles, ShapeWinsOverIds) {
  Graph g;
  g.node(g.add_node("begin")).set("shape", "Mdiamond");
  g.add_node("start");
  g.node(g.add_node("done")).set("shape", "Msquare");
  g.add_node("exit");
  ASSERT_EQ(find_start_nodes(g).size(), 1u);
  EXPECT_EQ(g.node(find_start_nodes(g)[0]).id, "begin");
  ASSERT_EQ(find_terminal_nodes(g).size(), 1u);
  EXPECT_EQ(g.node(find_terminal_nodes(g)[0]).id, "done");
}

TEST(NodeRoles, IdsWhenNoShape) {
  Graph g;
  g.add_node("Start");
  g.add_node("end");
  g.add_node("exit");
  ASSERT_EQ(find_start_nodes(g).size(), 1u);
  EXPECT_EQ(g.node(find_start_nodes(g)[0]).id, "Start");
  EXPECT_EQ(find_terminal_nodes(g).size(), 2u);
}

TEST(LintStartNode, MissingStart) {
  Graph g;
  g.node(g.add_node("work")).set("prompt", "x");
  g.node(g.add_node("exit")).set("shape", "Msquare");
  g.add_edge("work", "exit");
  auto all = validate(g, builtin_handler_catalog());
  ASSERT_EQ(all.size(), 1u);
  expect_diagnostic(all[0], "start_node", Severity::kError, "pipeline has no start node (shape=Mdiamond)", "",
                    "add one, e.g. start [shape=Mdiamond]");
  EXPECT_FALSE(all[0].location.known());
}

TEST(LintStartNode, IdStartWithoutShapeIsAccepted) {
  Graph g;
  g.node(g.add_node("start")).set("label", "Start");
  g.node(g.add_node("exit")).set("shape", "Msquare");
  g.add_edge("start", "exit");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "start_node").empty());
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "prompt_on_llm_nodes").empty());
}

TEST(LintStartNode, SeveralStarts) {
  Graph g = valid_pipeline();
  g.node(g.add_node("again", at(7, 3))).set("shape", "Mdiamond");
  g.add_edge("again", "work");
  auto d = only(validate(g, builtin_handler_catalog()), "start_node");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "start_node", Severity::kError,
                    "pipeline has 2 start nodes (start, again); exactly one is required", "again",
                    "keep one start node and remove the others");
  EXPECT_EQ(d[0].location.line, 7);
  EXPECT_EQ(d[0].location.column, 3);
}

TEST(LintTerminalNode, MissingExit) {
  Graph g;
  g.node(g.add_node("start")).set("shape", "Mdiamond");
  g.node(g.add_node("work")).set("prompt", "x");
  g.add_edge("start", "work");
  auto d = only(validate(g, builtin_handler_catalog()), "terminal_node");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "terminal_node", Severity::kError, "pipeline has no exit node (shape=Msquare)", "",
                    "add one, e.g. exit [shape=Msquare]");
}

TEST(LintTerminalNode, SeveralExitsById) {
  Graph g;
  g.node(g.add_node("start")).set("shape", "Mdiamond");
  g.add_node("exit", at(3, 1));
  g.add_node("end", at(4, 1));
  g.add_edge("start", "exit");
  g.add_edge("start", "end");
  auto d = only(validate(g, builtin_handler_catalog()), "terminal_node");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "terminal_node", Severity::kError,
                    "pipeline has 2 exit nodes (exit, end); exactly one is required", "end",
                    "keep one exit node and remove the others");
  EXPECT_EQ(d[0].location.line, 4);
}

TEST(LintReachability, UnreachableNodeIsAnError) {
  Graph g = valid_pipeline();
  g.node(g.add_node("orphan", at(9, 5))).set("prompt", "x");
  g.node(g.add_node("island", at(10, 5))).set("prompt", "y");
  g.add_edge("orphan", "island");
  auto d = only(validate(g, builtin_handler_catalog()), "reachability");
  ASSERT_EQ(d.size(), 2u);
  expect_diagnostic(d[0], "reachability", Severity::kError, "node 'orphan' is not reachable from start node 'start'",
                    "orphan", "add an edge into 'orphan' from a reachable node, or remove it");
  EXPECT_EQ(d[0].location.line, 9);
  EXPECT_EQ(d[0].location.column, 5);
  EXPECT_EQ(d[1].node_id, "island");
}

TEST(LintReachability, SkippedWithoutAUniqueStart) {
  Graph g = valid_pipeline();
  g.node(g.add_node("second_start")).set("shape", "Mdiamond");
  g.node(g.add_node("orphan")).set("prompt", "x");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "reachability").empty());
}

TEST(LintEdgeTargetExists, EdgeToUnknownNode) {
  Graph g = valid_pipeline();
  // A node renamed after it was added cannot be found by its id any more.
  g.node(*g.find("exit")).id = "ghost";
  auto d = only(validate(g, builtin_handler_catalog()), "edge_target_exists");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "edge_target_exists", Severity::kError, "edge work -> ghost targets unknown node 'ghost'", "",
                    "declare node 'ghost' or correct the edge");
  ASSERT_TRUE(d[0].edge.has_value());
  EXPECT_EQ(*d[0].edge, std::make_pair(std::string("work"), std::string("ghost")));
  EXPECT_EQ(d[0].location.line, 6);
}

TEST(LintEdgeTargetExists, EdgeFromUnknownNode) {
  Graph g = valid_pipeline();
  g.node(*g.find("start")).id = "nowhere";
  auto d = only(validate(g, builtin_handler_catalog()), "edge_target_exists");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "edge nowhere -> work starts at unknown node 'nowhere'");
}

TEST(LintStartNoIncoming, EdgeIntoStart) {
  Graph g = valid_pipeline();
  g.add_edge(*g.find("work"), *g.find("start"), {}, at(8, 3));
  auto d = only(validate(g, builtin_handler_catalog()), "start_no_incoming");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "start_no_incoming", Severity::kError, "start node 'start' has an incoming edge from 'work'",
                    "start",
                    "remove the edge work -> start; loop back to the first stage after the start node instead");
  EXPECT_EQ(*d[0].edge, std::make_pair(std::string("work"), std::string("start")));
  EXPECT_EQ(d[0].location.line, 8);
}

TEST(LintExitNoOutgoing, EdgeOutOfExit) {
  Graph g = valid_pipeline();
  g.add_edge(*g.find("exit"), *g.find("work"), {}, at(8, 3));
  auto d = only(validate(g, builtin_handler_catalog()), "exit_no_outgoing");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "exit_no_outgoing", Severity::kError, "exit node 'exit' has an outgoing edge to 'work'",
                    "exit", "remove the edge exit -> work; the run ends at the exit node");
  EXPECT_EQ(*d[0].edge, std::make_pair(std::string("exit"), std::string("work")));
  EXPECT_EQ(d[0].location.line, 8);
}

Graph routed_pipeline() {
  Graph g = valid_pipeline();
  g.node(g.add_node("budget", at(10, 3))).set("type", "manage_context_budget");
  g.data().set("max_context_tokens", "4000");  // context_budget_settings requires it
  g.node(g.add_node("answer")).set("prompt", "answer");
  g.node(g.add_node("compact")).set("prompt", "compact");
  g.add_edge("work", "budget");
  g.add_edge("budget", "answer");
  g.add_edge("budget", "compact");
  g.add_edge("answer", "exit");
  g.add_edge("compact", "budget");
  return g;
}

TEST(LintOutgoingRouteTargets, MatchingEdgesPass) {
  Graph g = routed_pipeline();
  g.node("budget")->set("on_ok", "answer", ValueKind::kBare, at(10, 20));
  g.node("budget")->set("on_over", "compact", ValueKind::kBare, at(10, 40));
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintOutgoingRouteTargets, TargetWithoutEdge) {
  Graph g = routed_pipeline();
  g.node("budget")->set("on_over", "work", ValueKind::kBare, at(10, 40));
  auto d = only(validate(g, builtin_handler_catalog()), "outgoing_route_targets");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "outgoing_route_targets", Severity::kError,
                    "node 'budget' has on_over='work', but no edge budget -> work", "budget",
                    "add the edge budget -> work");
  EXPECT_EQ(d[0].location.line, 10);
  EXPECT_EQ(d[0].location.column, 40);
}

TEST(LintOutgoingRouteTargets, UnknownTarget) {
  Graph g = routed_pipeline();
  g.node("budget")->set("next", "answr");
  g.node("budget")->set("on_deny", "nothing_like_it");
  auto d = only(validate(g, builtin_handler_catalog()), "outgoing_route_targets");
  ASSERT_EQ(d.size(), 2u);
  // Same location (the node's), so they keep the scan's order: attributes by name.
  expect_diagnostic(d[0], "outgoing_route_targets", Severity::kError,
                    "node 'budget' has next='answr', but there is no node 'answr'", "budget", "did you mean 'answer'?");
  EXPECT_EQ(d[0].location.line, 10);  // falls back to the node's location
  EXPECT_EQ(d[0].location.column, 3);
  expect_diagnostic(d[1], "outgoing_route_targets", Severity::kError,
                    "node 'budget' has on_deny='nothing_like_it', but there is no node 'nothing_like_it'", "budget",
                    "declare node 'nothing_like_it' and an edge budget -> nothing_like_it");
}

TEST(LintValidate, SortedByPositionUnknownLastThenRule) {
  Graph g;
  g.node(g.add_node("b", at(5, 1))).set("prompt", "x");
  g.node(g.add_node("a", at(3, 7))).set("prompt", "y");
  auto d = validate(g, builtin_handler_catalog());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].rule, "start_node");
  EXPECT_EQ(d[1].rule, "terminal_node");

  Graph h = valid_pipeline();
  h.node(h.add_node("late", at(20, 1))).set("prompt", "x");
  h.node(h.add_node("early", at(1, 9))).set("prompt", "x");
  h.node(h.add_node("early2", at(1, 2))).set("prompt", "x");
  h.data().set("default_fidelity", "bogus");
  auto e = validate(h, builtin_handler_catalog());
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].node_id, "early2");
  EXPECT_EQ(e[1].node_id, "early");
  EXPECT_EQ(e[2].node_id, "late");
  EXPECT_EQ(e[3].rule, "fidelity_valid");
}

class CountingRule : public LintRule {
 public:
  explicit CountingRule(std::string name, Severity severity = Severity::kInfo)
      : name_(std::move(name)), severity_(severity) {}
  std::string name() const override { return name_; }
  void apply(const LintInput& input, std::vector<Diagnostic>& out) const override {
    Diagnostic d;
    d.rule = name_;
    d.severity = severity_;
    d.message = "saw " + std::to_string(input.graph().node_count()) + " nodes";
    out.push_back(d);
  }

 private:
  std::string name_;
  Severity severity_;
};

/// Reports the handler catalog and options it was given.
class GivenRule : public LintRule {
 public:
  std::string name() const override { return "given"; }
  void apply(const LintInput& input, std::vector<Diagnostic>& out) const override {
    Diagnostic d;
    d.rule = name();
    d.severity = Severity::kInfo;
    d.message = std::to_string(input.handlers().types().size()) + " types, keys:";
    for (const std::string& key : input.options().known_context_keys) d.message += " " + key;
    out.push_back(d);
  }
};

TEST(LintValidate, RulesReceiveTheCatalogAndTheOptionsAsTheirInput) {
  LintOptions options;
  options.known_context_keys = {"ready"};
  const std::string expected = std::to_string(builtin_handler_catalog().types().size()) + " types, keys: ready";
  auto d = validate(valid_pipeline(), builtin_handler_catalog(), options, {std::make_shared<GivenRule>()});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, expected);
  // Outside validate a rule sees what its caller passes, not an empty catalog.
  Graph g = valid_pipeline();
  const LintInput input(g, builtin_handler_catalog(), options);
  std::vector<Diagnostic> out;
  GivenRule().apply(input, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, expected);
  EXPECT_EQ(input.start_nodes(), find_start_nodes(g));
}

TEST(LintValidate, RegisteredAndExtraRulesRunAfterBuiltins) {
  std::vector<Diagnostic> d;
  {
    testing::ScopedLintRules registered({std::make_shared<CountingRule>("zz_registered")});
    d = validate(valid_pipeline(), builtin_handler_catalog(), {std::make_shared<CountingRule>("aa_extra")});
  }
  ASSERT_EQ(d.size(), 2u);
  // Both have unknown positions, so they sort by rule name.
  EXPECT_EQ(d[0].rule, "aa_extra");
  EXPECT_EQ(d[0].message, "saw 3 nodes");
  EXPECT_EQ(d[1].rule, "zz_registered");
  EXPECT_TRUE(validate(valid_pipeline(), builtin_handler_catalog()).empty());
}

TEST(LintValidate, RegistrationOrderKeptForEqualKeys) {
  std::vector<Diagnostic> d;
  {
    testing::ScopedLintRules registered({std::make_shared<CountingRule>("custom", Severity::kWarning),
                                         std::make_shared<CountingRule>("custom", Severity::kInfo)});
    d = validate(valid_pipeline(), builtin_handler_catalog(),
                 {std::make_shared<CountingRule>("custom", Severity::kError)});
  }
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].severity, Severity::kWarning);
  EXPECT_EQ(d[1].severity, Severity::kInfo);
  EXPECT_EQ(d[2].severity, Severity::kError);
}

TEST(LintValidateOrRaise, ThrowsOnErrors) {
  Graph g = valid_pipeline();
  g.node(g.add_node("orphan")).set("prompt", "x");
  try {
    validate_or_raise(g, builtin_handler_catalog());
    FAIL() << "expected ValidationError";
  } catch (const ValidationError& error) {
    ASSERT_EQ(error.diagnostics().size(), 1u);
    EXPECT_EQ(error.diagnostics()[0].rule, "reachability");
    EXPECT_EQ(std::string(error.what()),
              "pipeline has errors:\n  [reachability] node 'orphan' is not reachable from start node 'start'");
  }
}

TEST(LintValidateOrRaise, ReturnsWarnings) {
  Graph g = valid_pipeline();
  g.node("work")->set("fidelity", "everything");
  auto d = validate_or_raise(g, builtin_handler_catalog());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].rule, "fidelity_valid");
  EXPECT_EQ(d[0].severity, Severity::kWarning);
}

}  // namespace
}  // namespace attractor
