#include <string>

#include <gtest/gtest.h>

#include "attractor/check/pipeline_loader.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

std::vector<Diagnostic> lint_of(const std::string& text) {
  LoadedPipeline loaded = load_pipeline_text("test.dot", text, builtin_handler_catalog());
  EXPECT_TRUE(loaded.graph.has_value());
  return loaded.diagnostics;
}

std::string formatted(const std::string& text) {
  LoadedPipeline loaded = load_pipeline_text("test.dot", text, builtin_handler_catalog());
  std::string out;
  for (const Diagnostic& d : loaded.diagnostics) out += format_diagnostic(d, loaded.source.get());
  return out;
}

TEST(LintDot, CleanPipeline) {
  EXPECT_TRUE(lint_of(R"(digraph G {
  graph [goal="Ship"]
  start [shape=Mdiamond]
  work  [prompt="Do $goal"]
  exit  [shape=Msquare]
  start -> work -> exit [condition="outcome=success"]
}
)")
                  .empty());
}

TEST(LintDot, ConditionErrorCaretInsideValue) {
  EXPECT_EQ(formatted(R"(digraph G {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  start -> exit [condition="outcome=success && context.ok=\"yes"]
}
)"),
            "test.dot:4:59: error: [condition_syntax] invalid condition on edge start -> exit: unterminated string in "
            "condition\n"
            "    start -> exit [condition=\"outcome=success && context.ok=\\\"yes\"]\n"
            "  " +
                std::string(58, ' ') + "^\n" +
                "  fix: write clauses key=value or key!=value joined by '&&', e.g. outcome=success && "
                "context.ready=true\n");
}

TEST(LintDot, StylesheetErrorOnLaterLineOfValue) {
  auto d = lint_of(R"(digraph G {
  graph [model_stylesheet="
    * { llm_model: a; }
    .code { llm_model b; }
  "]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  start -> exit
}
)");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].rule, "stylesheet_syntax");
  EXPECT_EQ(d[0].message, "invalid model_stylesheet: expected ':' after the property name");
  EXPECT_EQ(d[0].location.line, 4);
  EXPECT_EQ(d[0].location.column, 23);
}

TEST(LintDot, DiagnosticsSortedByPosition) {
  auto d = lint_of(R"(digraph G {
  start [shape=Mdiamond]
  work  [promt="x", max_retries=lots]
  exit  [shape=Msquare]
  start -> work [weight=heavy]
  work -> exit
  exit -> work
}
)");
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].rule, "prompt_on_llm_nodes");
  EXPECT_EQ(d[0].location.line, 3);
  EXPECT_EQ(d[0].location.column, 3);
  EXPECT_EQ(d[1].rule, "attribute_spelling");
  EXPECT_EQ(d[1].message, "unknown attribute 'promt'; did you mean 'prompt'?");
  EXPECT_EQ(d[1].location.column, 16);
  EXPECT_EQ(d[2].rule, "attribute_type");
  EXPECT_EQ(d[2].message, "node 'work': max_retries must be a non-negative integer, got 'lots'");
  EXPECT_EQ(d[2].location.column, 33);
  EXPECT_EQ(d[3].rule, "attribute_type");
  EXPECT_EQ(d[3].message, "edge start -> work: weight must be an integer, got 'heavy'");
  EXPECT_EQ(d[3].location.line, 5);
  EXPECT_EQ(d[3].location.column, 25);
  EXPECT_EQ(d[4].rule, "exit_no_outgoing");
  EXPECT_EQ(d[4].location.line, 7);
  EXPECT_EQ(d[4].location.column, 3);
}

TEST(LintDot, MisspeltDefaultReportedOnce) {
  auto d = lint_of(R"(digraph G {
  node [thread_di="loop"]
  start [shape=Mdiamond]
  a [prompt="a"]
  b [prompt="b"]
  exit  [shape=Msquare]
  start -> a -> b -> exit
}
)");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].rule, "attribute_spelling");
  EXPECT_EQ(d[0].message, "unknown attribute 'thread_di'; did you mean 'thread_id'?");
  EXPECT_EQ(d[0].location.line, 2);
  EXPECT_EQ(d[0].location.column, 19);
}

TEST(LintDot, RetrievalPipelineWithSettingsAndRoutes) {
  auto d = lint_of(R"(digraph G {
  graph [max_context_tokens=4096, graph_max_depth=2]
  start  [shape=Mdiamond]
  expand [type="expand_dependency_tree", max_depth_from_settings="graph_max_depth",
          max_nodes_from_settings="graph_max_nodes", edge_allowlist_from_settings="graph_max_depth"]
  budget [type="manage_context_budget", on_ok="answer", on_over="exit"]
  answer [prompt="Answer"]
  exit   [shape=Msquare]
  start -> expand -> budget -> answer -> exit
}
)");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].rule, "from_settings_exists");
  EXPECT_EQ(d[0].message,
            "node 'expand' has max_nodes_from_settings='graph_max_nodes', but the graph has no attribute "
            "'graph_max_nodes'");
  EXPECT_EQ(d[0].location.line, 5);
  EXPECT_EQ(d[0].location.column, 35);
  EXPECT_EQ(d[1].rule, "outgoing_route_targets");
  EXPECT_EQ(d[1].message, "node 'budget' has on_over='exit', but no edge budget -> exit");
  EXPECT_EQ(d[1].location.line, 6);
  EXPECT_EQ(d[1].location.column, 65);
}

TEST(LintDot, StylesheetAndGoalTransformsApplied) {
  LoadedPipeline loaded = load_pipeline_text("test.dot", R"(digraph G {
  graph [goal="Fix bug 7", model_stylesheet="* { llm_model: small } .code { llm_model: big }"]
  start [shape=Mdiamond]
  work  [prompt="Work on: $goal", class="code"]
  plan  [prompt="Plan", llm_model="mine", class="code"]
  exit  [shape=Msquare]
  start -> plan -> work -> exit
}
)",
                                             builtin_handler_catalog());
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded.graph->node("work")->prompt(), "Work on: Fix bug 7");
  EXPECT_EQ(loaded.graph->node("work")->llm_model(), "big");
  EXPECT_EQ(loaded.graph->node("plan")->llm_model(), "mine");
  EXPECT_EQ(loaded.graph->node("start")->llm_model(), "small");
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

const char kParallelEdits[] = R"(digraph G {
  graph [goal="Ship"%s]
  start [shape=Mdiamond]
  split [shape=component]
  a [shape=parallelogram, tool_command="echo a > a.txt"]
  b [shape=parallelogram, tool_command="echo b > b.txt"]
  join [shape=tripleoctagon]
  exit  [shape=Msquare]
  start -> split -> a -> join
  split -> b -> join
  join -> exit
}
)";

std::string with_workspace(const std::string& attr) {
  std::string text = kParallelEdits;
  return text.replace(text.find("%s"), 2, attr);
}

TEST(LintDot, ParallelNodeInAWorktreeGraphIsReported) {
  EXPECT_EQ(formatted(with_workspace(", workspace=\"worktree\"")),
            "test.dot:4:3: warning: [worktree_parallel] node 'split' runs its branches at once in the run's one "
            "worktree: their edits are committed together as its stage, and branches that write the same file "
            "overwrite each other\n"
            "    split [shape=component]\n"
            "    ^\n"
            "  fix: let each branch write files of its own, or run the edits one after another\n");
  EXPECT_EQ(formatted(with_workspace("")), "");
  EXPECT_EQ(formatted(with_workspace(", workspace=\"in-place\"")), "");
}

}  // namespace
}  // namespace attractor
