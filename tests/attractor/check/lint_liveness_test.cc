// Authoring safety: loops that no edge leaves, dead ends, unknown shapes, tool nodes without a
// command, condition keys one edit from `outcome`/`preferred_label`, and strict mode.

#include <gtest/gtest.h>

#include "attractor/check/pipeline_loader.h"
#include "handlers/registry.h"
#include "support/lint_test_support.h"

namespace attractor {
namespace {

using lint_test::only;

std::vector<Diagnostic> lint(const std::string& body, const LintOptions& options = {}) {
  LoadedPipeline p = load_pipeline_text("g.dot", "digraph g {\n" + body + "}\n", builtin_handler_catalog(), options);
  EXPECT_TRUE(p.graph.has_value());
  return p.diagnostics;
}

const char* kEnds = "  start [shape=Mdiamond]\n  exit [shape=Msquare]\n";

TEST(LintExitReachable, ALoopWithoutAWayOutIsNamedWithItsMembers) {
  auto d = lint(std::string(kEnds) +
                "  review [prompt=\"r\"]\n  fix [prompt=\"f\"]\n"
                "  start -> review -> fix -> review\n");
  auto loops = only(d, "exit_reachable");
  ASSERT_EQ(loops.size(), 1u);
  lint_test::expect_diagnostic(loops[0], "exit_reachable", Severity::kError,
                               "nodes 'review', 'fix' form a loop that no edge leaves, so exit node 'exit' cannot be "
                               "reached from them",
                               "review",
                               "add an edge from one of them toward 'exit' (a failure route such as "
                               "[condition=\"outcome=fail\"] counts)");
  EXPECT_EQ(loops[0].location.line, 4);
  EXPECT_TRUE(only(d, "dead_end").empty());
}

TEST(LintExitReachable, AFailureOnlyExitIsARoute) {
  auto d = lint(std::string(kEnds) +
                "  review [prompt=\"r\"]\n  fix [prompt=\"f\"]\n"
                "  start -> review -> fix -> review\n"
                "  fix -> exit [condition=\"outcome=fail\"]\n");
  EXPECT_TRUE(only(d, "exit_reachable").empty());
  EXPECT_TRUE(only(d, "dead_end").empty());
}

TEST(LintExitReachable, ASelfLoopWithoutAWayOut) {
  auto d = lint(std::string(kEnds) + "  poll [prompt=\"p\"]\n  start -> poll -> poll\n");
  auto loops = only(d, "exit_reachable");
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].message,
            "node 'poll' loops back to itself and no edge leaves it, so exit node 'exit' cannot be reached from it");
}

TEST(LintDeadEnd, AChainIntoADeadEndReportsOnlyTheDeadEnd) {
  auto d = lint(std::string(kEnds) +
                "  a [prompt=\"a\"]\n  b [prompt=\"b\"]\n  c [prompt=\"c\"]\n"
                "  start -> a -> b -> c\n  a -> exit\n");
  auto dead = only(d, "dead_end");
  ASSERT_EQ(dead.size(), 1u);
  lint_test::expect_diagnostic(dead[0], "dead_end", Severity::kError,
                               "node 'c' has no outgoing edge, so a run that enters it stops there without reaching "
                               "exit node 'exit'",
                               "c", "add an edge from 'c' to the next stage or to 'exit'");
  EXPECT_TRUE(only(d, "exit_reachable").empty()) << "b only flows into the dead end";
}

TEST(LintDeadEnd, ALoopThatLeadsIntoADeadEndReportsTheDeadEnd) {
  auto d = lint(std::string(kEnds) +
                "  a [prompt=\"a\"]\n  b [prompt=\"b\"]\n  c [prompt=\"c\"]\n"
                "  start -> a -> b -> a\n  b -> c\n");
  EXPECT_EQ(only(d, "dead_end").size(), 1u);
  EXPECT_TRUE(only(d, "exit_reachable").empty());
}

TEST(LintDeadEnd, NodesTheStartNeverReachesAreLeftToReachability) {
  auto d = lint(std::string(kEnds) + "  orphan [prompt=\"o\"]\n  start -> exit\n");
  EXPECT_EQ(only(d, "reachability").size(), 1u);
  EXPECT_TRUE(only(d, "dead_end").empty());
  EXPECT_TRUE(only(d, "exit_reachable").empty());
}

TEST(LintShapeKnown, ATypoIsAnErrorWithDidYouMean) {
  auto d = only(
      lint(std::string(kEnds) + "  build [shape=parallelgram, tool_command=\"make\"]\n  start -> build -> exit\n"),
      "shape_known");
  ASSERT_EQ(d.size(), 1u);
  lint_test::expect_diagnostic(d[0], "shape_known", Severity::kError,
                               "node 'build' has shape 'parallelgram', which selects no handler type", "build",
                               "did you mean 'parallelogram'?");
  EXPECT_EQ(d[0].location.line, 4);
  EXPECT_EQ(d[0].location.column, 16);
  auto all = lint(std::string(kEnds) + "  build [shape=parallelgram]\n  start -> build -> exit\n");
  EXPECT_TRUE(only(all, "prompt_on_llm_nodes").empty()) << "the unknown shape is the one finding";
}

TEST(LintShapeKnown, AnUnmappedShapeNeedsAType) {
  auto d = only(lint(std::string(kEnds) + "  work [shape=ellipse, prompt=\"w\"]\n  start -> work -> exit\n"),
                "shape_known");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].fix,
            "use a shape that `attractor help shapes` lists, or set type=NAME (the shape is then only a drawing)");
  EXPECT_TRUE(
      only(lint(std::string(kEnds) + "  work [shape=ellipse, type=codergen, prompt=\"w\"]\n  start -> work -> exit\n"),
           "shape_known")
          .empty());
}

TEST(LintToolCommand, AToolWithoutACommandIsAnErrorBeforeTheRun) {
  auto d = only(lint(std::string(kEnds) + "  build [shape=parallelogram]\n  start -> build -> exit\n"), "tool_command");
  ASSERT_EQ(d.size(), 1u);
  lint_test::expect_diagnostic(d[0], "tool_command", Severity::kError, "tool node 'build' has no tool_command", "build",
                               "add tool_command=\"...\" (run with /bin/sh -c) to 'build'");
}

TEST(LintConditionKeySpelling, BareKeysOneEditFromOutcomeOrPreferredLabelWarn) {
  std::string body = std::string(kEnds) +
                     "  work [prompt=\"w\"]\n  start -> work\n"
                     "  work -> exit [condition=\"outcom=success\"]\n"
                     "  work -> exit [condition=\"preferred_lable=Yes\"]\n"
                     "  work -> exit [condition=\"context.outcom=1\"]\n"
                     "  work -> exit [condition=\"ready\"]\n";
  auto d = only(lint(body), "condition_key_spelling");
  ASSERT_EQ(d.size(), 2u);
  lint_test::expect_diagnostic(d[0], "condition_key_spelling", Severity::kWarning,
                               "condition on edge work -> exit reads context key 'outcom', which nothing sets before "
                               "the run",
                               "", "did you mean 'outcome'?");
  EXPECT_EQ(d[0].location.line, 6);
  EXPECT_EQ(d[1].fix, "did you mean 'preferred_label'?");

  LintOptions known;
  known.known_context_keys = {"outcom", "preferred_lable"};
  EXPECT_TRUE(only(lint(body, known), "condition_key_spelling").empty());
}

TEST(LintStrict, WarningsBecomeErrorsWithTheOptionOrTheGraphAttribute) {
  std::string body = std::string(kEnds) +
                     "  work [prompt=\"w\"]\n  start -> work\n  work -> exit [condition=\"outcom=success\"]\n";
  ASSERT_EQ(only(lint(body), "condition_key_spelling")[0].severity, Severity::kWarning);
  LintOptions strict;
  strict.strict = true;
  auto d = only(lint(body, strict), "condition_key_spelling");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, Severity::kError);
  EXPECT_EQ(d[0].message,
            "condition on edge work -> exit reads context key 'outcom', which nothing sets before the run (a warning, "
            "an error in strict mode)");
  auto by_graph = only(lint("  graph [strict=true]\n" + body), "condition_key_spelling");
  ASSERT_EQ(by_graph.size(), 1u);
  EXPECT_EQ(by_graph[0].severity, Severity::kError);
}

}  // namespace
}  // namespace attractor
