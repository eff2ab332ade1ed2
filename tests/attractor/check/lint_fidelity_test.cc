// thread_id_fidelity: thread_id only matters where the stage's fidelity can resolve to full.

#include <algorithm>

#include <gtest/gtest.h>

#include "attractor/check/lint.h"
#include "support/lint_test_support.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

using lint_test::at;
using lint_test::expect_diagnostic;
using lint_test::only;
using lint_test::valid_pipeline;

TEST(LintThreadIdFidelity, NodeThreadWithDefaultCompactWarns) {
  Graph g = valid_pipeline();
  g.node("work")->set("thread_id", "coding", ValueKind::kString, at(3, 20));
  auto d = only(validate(g, builtin_handler_catalog()), "thread_id_fidelity");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "thread_id_fidelity", Severity::kWarning,
                    "node 'work' sets thread_id \"coding\" but its fidelity is never full (it resolves to 'compact' "
                    "and no incoming edge sets fidelity=full)",
                    "work", "set fidelity=full on the node or an incoming edge, or remove thread_id");
  EXPECT_EQ(d[0].location.line, 3);
  EXPECT_EQ(d[0].location.column, 20);
}

TEST(LintThreadIdFidelity, NodeFidelityFullIsFine) {
  Graph g = valid_pipeline();
  g.node("work")->set("thread_id", "coding");
  g.node("work")->set("fidelity", "full");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "thread_id_fidelity").empty());
}

TEST(LintThreadIdFidelity, GraphDefaultFullIsFine) {
  Graph g = valid_pipeline();
  g.node("work")->set("thread_id", "coding");
  g.data().set("default_fidelity", "full");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "thread_id_fidelity").empty());
}

TEST(LintThreadIdFidelity, AnIncomingFullEdgeOverridesTheNode) {
  Graph g = valid_pipeline();
  g.node("work")->set("thread_id", "coding");
  g.node("work")->set("fidelity", "truncate");
  EXPECT_EQ(only(validate(g, builtin_handler_catalog()), "thread_id_fidelity").size(), 1u);
  g.edge(g.edges()[0]).set("fidelity", "full");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "thread_id_fidelity").empty());
}

TEST(LintThreadIdFidelity, NodeFullButEveryWayInIsNotStillCountsAsPossible) {
  // An edge without fidelity, a retry target or a jump can still enter with the node's own mode.
  Graph g = valid_pipeline();
  g.node("work")->set("thread_id", "coding");
  g.node("work")->set("fidelity", "full");
  g.edge(g.edges()[0]).set("fidelity", "compact");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "thread_id_fidelity").empty());
}

TEST(LintThreadIdFidelity, EdgeThreadIntoANonFullStageWarns) {
  Graph g = valid_pipeline();
  g.edge(g.edges()[0]).set("thread_id", "coding", ValueKind::kString, at(5, 20));
  auto d = only(validate(g, builtin_handler_catalog()), "thread_id_fidelity");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "thread_id_fidelity", Severity::kWarning,
                    "edge start -> work sets thread_id \"coding\" but the stage it enters never runs with fidelity "
                    "full (it resolves to 'compact')",
                    "", "set fidelity=full on the edge or on node 'work', or remove thread_id");
  ASSERT_TRUE(d[0].edge.has_value());
  EXPECT_EQ(d[0].edge->first, "start");
  EXPECT_EQ(d[0].edge->second, "work");
  EXPECT_EQ(d[0].location.line, 5);
}

TEST(LintThreadIdFidelity, EdgeThreadWithFullOnTheEdgeOrTargetIsFine) {
  Graph g = valid_pipeline();
  g.edge(g.edges()[0]).set("thread_id", "coding");
  g.edge(g.edges()[0]).set("fidelity", "full");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "thread_id_fidelity").empty());
  Graph h = valid_pipeline();
  h.edge(h.edges()[0]).set("thread_id", "coding");
  h.node("work")->set("fidelity", "full");
  EXPECT_TRUE(only(validate(h, builtin_handler_catalog()), "thread_id_fidelity").empty());
}

TEST(LintThreadIdFidelity, EdgeFidelityOverridesAFullTarget) {
  Graph g = valid_pipeline();
  g.node("work")->set("fidelity", "full");
  g.edge(g.edges()[0]).set("thread_id", "coding");
  g.edge(g.edges()[0]).set("fidelity", "summary:low");
  auto d = only(validate(g, builtin_handler_catalog()), "thread_id_fidelity");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message,
            "edge start -> work sets thread_id \"coding\" but the stage it enters never runs with fidelity full (it "
            "resolves to 'summary:low')");
}

TEST(LintThreadIdFidelity, IsABuiltinRuleAfterFidelityValid) {
  auto names = builtin_lint_rule_names();
  auto it = std::find(names.begin(), names.end(), "fidelity_valid");
  ASSERT_NE(it, names.end());
  ASSERT_NE(it + 1, names.end());
  EXPECT_EQ(*(it + 1), "thread_id_fidelity");
}

}  // namespace
}  // namespace attractor
