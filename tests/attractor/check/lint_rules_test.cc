#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "support/lint_test_support.h"

#include "attractor/check/lint.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

using lint_test::at;
using lint_test::expect_diagnostic;
using lint_test::only;
using lint_test::valid_pipeline;

using EdgeIds = std::pair<std::string, std::string>;

/// A SourceFile whose text holds `value_text` on line 2; returns the location of its opening quote.
struct FileWithValue {
  SourceFilePtr file;
  Value value;
};

FileWithValue file_with(const std::string& line2, const std::string& quoted_from) {
  std::string text = "digraph G {\n" + line2 + "\n}\n";
  auto file = std::make_shared<const SourceFile>("test.dot", text);
  std::size_t quote = text.find(quoted_from);
  std::string raw;
  std::size_t i = quote + 1;
  while (text[i] != '"') {
    if (text[i] == '\\') ++i;
    raw += text[i];
    ++i;
  }
  return {file, Value(ValueKind::kString, raw, file->locate(quote))};
}

TEST(LintConditionSyntax, ValidConditionsPass) {
  Graph g = valid_pipeline();
  g.edge(g.edges()[1]).set("condition", "outcome=success && context.ready");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintConditionSyntax, ErrorPointsInsideTheValue) {
  auto [file, value] = file_with("  work -> exit [condition=\"outcome=success || outcome=fail\"]", "\"outcome");
  Graph g = valid_pipeline();
  g.set_source(file);
  g.edge(g.edges()[1]).attrs.insert_or_assign("condition", value);
  auto d = only(validate(g, builtin_handler_catalog()), "condition_syntax");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "condition_syntax", Severity::kError,
                    "invalid condition on edge work -> exit: '||' is not supported; use separate edges", "",
                    "add one edge per alternative, each with its own condition");
  EXPECT_EQ(*d[0].edge, EdgeIds("work", "exit"));
  EXPECT_EQ(d[0].location.line, 2);
  EXPECT_EQ(d[0].location.column, 44);
}

TEST(LintConditionSyntax, ErrorColumnAccountsForEscapes) {
  auto [file, value] = file_with(R"(  work -> exit [condition="context.x=\"abc"])", "\"context");
  ASSERT_EQ(value.text, "context.x=\"abc");
  Graph g = valid_pipeline();
  g.set_source(file);
  g.edge(g.edges()[1]).attrs.insert_or_assign("condition", value);
  auto d = only(validate(g, builtin_handler_catalog()), "condition_syntax");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "condition_syntax", Severity::kError,
                    "invalid condition on edge work -> exit: unterminated string in condition", "",
                    "write clauses key=value or key!=value joined by '&&', e.g. outcome=success && context.ready=true");
  EXPECT_EQ(d[0].location.line, 2);
  EXPECT_EQ(d[0].location.column, 38);  // the backslash of \" in the file
}

TEST(LintConditionSyntax, WithoutSourceUsesValueLocation) {
  Graph g = valid_pipeline();
  g.edge(g.edges()[1]).set("condition", "outcome=", ValueKind::kString, at(6, 30));
  auto d = only(validate(g, builtin_handler_catalog()), "condition_syntax");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "invalid condition on edge work -> exit: expected a value after '='");
  EXPECT_EQ(d[0].location.line, 6);
  EXPECT_EQ(d[0].location.column, 30);
}

TEST(LintConditionSyntax, UnknownValueLocationFallsBackToEdge) {
  Graph g = valid_pipeline();
  g.edge(g.edges()[1]).set("condition", "outcome=success extra");
  auto d = only(validate(g, builtin_handler_catalog()), "condition_syntax");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "invalid condition on edge work -> exit: expected '&&' or end of condition");
  EXPECT_EQ(d[0].location.line, 6);
  EXPECT_EQ(d[0].location.column, 3);
}

TEST(LintConditionOutcomeValue, UnknownStatusWithSuggestion) {
  auto [file, value] = file_with("  work -> exit [condition=\"context.ok=1 && outcome=SUCCESS\"]", "\"context");
  Graph g = valid_pipeline();
  g.set_source(file);
  g.edge(g.edges()[1]).attrs.insert_or_assign("condition", value);
  g.edge(g.edges()[0]).set("condition", "outcome!=failed");
  auto d = only(validate(g, builtin_handler_catalog()), "condition_outcome_value");
  ASSERT_EQ(d.size(), 2u);
  expect_diagnostic(d[0], "condition_outcome_value", Severity::kWarning,
                    "condition on edge work -> exit compares outcome with 'SUCCESS', which is never an outcome; "
                    "expected success, partial_success, retry, fail or skipped",
                    "", "did you mean 'success'?");
  EXPECT_EQ(*d[0].edge, EdgeIds("work", "exit"));
  EXPECT_EQ(d[0].location.line, 2);
  EXPECT_EQ(d[0].location.column, 44);
  expect_diagnostic(d[1], "condition_outcome_value", Severity::kWarning,
                    "condition on edge start -> work compares outcome with 'failed', which is never an outcome; "
                    "expected success, partial_success, retry, fail or skipped",
                    "", "did you mean 'fail'?");
  EXPECT_EQ(d[1].location.line, 5);
}

TEST(LintConditionOutcomeValue, KnownStatusesPass) {
  Graph g = valid_pipeline();
  g.edge(g.edges()[0]).set("condition", "outcome=success && outcome!=partial_success && outcome");
  g.edge(g.edges()[1]).set("condition", "outcome=retry && outcome!=fail && outcome!=skipped && context.x=SUCCESS");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintStylesheetSyntax, ValidStylesheetPasses) {
  Graph g = valid_pipeline();
  g.data().set("model_stylesheet", "* { llm_model: m; } .code { reasoning_effort: low }");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintStylesheetSyntax, ErrorPointsInsideTheValue) {
  auto [file, value] = file_with("  model_stylesheet=\"* { llm_model: a; llm_modle: b }\"", "\"*");
  Graph g = valid_pipeline();
  g.set_source(file);
  g.data().attrs.insert_or_assign("model_stylesheet", value);
  auto d = only(validate(g, builtin_handler_catalog()), "stylesheet_syntax");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "stylesheet_syntax", Severity::kError,
                    "invalid model_stylesheet: unknown property 'llm_modle'; expected llm_model, llm_provider or "
                    "reasoning_effort",
                    "", "rules look like: .code { llm_model: claude-opus-4-6; reasoning_effort: high; }");
  EXPECT_EQ(d[0].location.line, 2);
  EXPECT_EQ(d[0].location.column, 39);
}

TEST(LintTypeKnown, UnknownTypeWithSuggestion) {
  Graph g = valid_pipeline();
  g.node("work")->set("type", "serch_nodes", ValueKind::kString, at(3, 20));
  auto d = only(validate(g, builtin_handler_catalog()), "type_known");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "type_known", Severity::kWarning, "node 'work' has unknown type 'serch_nodes'", "work",
                    "did you mean 'search_nodes'?");
  EXPECT_EQ(d[0].location.column, 20);
}

TEST(LintTypeKnown, UnknownTypeListsKnownTypes) {
  Graph g = valid_pipeline();
  g.node("work")->set("type", "quantum_leap");
  auto d = only(validate(g, builtin_handler_catalog()), "type_known");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "node 'work' has unknown type 'quantum_leap'");
  std::string all;
  for (const auto& t : builtin_handler_catalog().types()) all += (all.empty() ? "" : ", ") + t;
  EXPECT_EQ(d[0].fix, "known types: " + all);
  EXPECT_EQ(d[0].location.line, 3);  // node location
}

TEST(LintTypeKnown, KnownAndRegisteredTypesPass) {
  Graph g = valid_pipeline();
  g.node("work")->set("type", "codergen");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("lint_test.custom", nullptr);
  g.node("work")->set("type", "lint_test.custom");
  EXPECT_TRUE(validate(g, registry.catalog()).empty());
}

TEST(LintFidelityValid, NodeEdgeAndGraph) {
  Graph g = valid_pipeline();
  g.node("work")->set("fidelity", "summary:hihg", ValueKind::kString, at(3, 30));
  g.edge(g.edges()[0]).set("fidelity", "everything");
  g.data().set("default_fidelity", "ful");
  auto d = only(validate(g, builtin_handler_catalog()), "fidelity_valid");
  ASSERT_EQ(d.size(), 3u);
  const std::string expected = "; expected full, truncate, compact, summary:low, summary:medium or summary:high";
  expect_diagnostic(d[0], "fidelity_valid", Severity::kWarning,
                    "node 'work' has invalid fidelity 'summary:hihg'" + expected, "work",
                    "did you mean 'summary:high'?");
  EXPECT_EQ(d[0].location.column, 30);
  expect_diagnostic(d[1], "fidelity_valid", Severity::kWarning,
                    "edge start -> work has invalid fidelity 'everything'" + expected, "",
                    "use one of: full, truncate, compact, summary:low, summary:medium, summary:high");
  EXPECT_EQ(*d[1].edge, EdgeIds("start", "work"));
  EXPECT_EQ(d[1].location.line, 5);
  expect_diagnostic(d[2], "fidelity_valid", Severity::kWarning, "graph has invalid default_fidelity 'ful'" + expected,
                    "", "did you mean 'full'?");
  EXPECT_FALSE(d[2].location.known());
}

TEST(LintFidelityValid, AllModesPass) {
  Graph g = valid_pipeline();
  g.data().set("default_fidelity", "compact");
  g.node("work")->set("fidelity", "summary:medium");
  g.edge(g.edges()[0]).set("fidelity", "truncate");
  g.edge(g.edges()[1]).set("fidelity", "full");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintRetryTargetExists, NodeAndGraphTargets) {
  Graph g = valid_pipeline();
  g.node("work")->set("retry_target", "wrok", ValueKind::kBare, at(3, 40));
  g.node("work")->set("fallback_retry_target", "start");
  g.data().set("fallback_retry_target", "elsewhere");
  auto d = only(validate(g, builtin_handler_catalog()), "retry_target_exists");
  ASSERT_EQ(d.size(), 2u);
  expect_diagnostic(d[0], "retry_target_exists", Severity::kWarning,
                    "node 'work' has retry_target 'wrok', which is not a node", "work", "did you mean 'work'?");
  EXPECT_EQ(d[0].location.column, 40);
  expect_diagnostic(d[1], "retry_target_exists", Severity::kWarning,
                    "graph has fallback_retry_target 'elsewhere', which is not a node", "",
                    "set fallback_retry_target to the id of an existing node");
}

TEST(LintGoalGateHasRetry, GateWithoutTarget) {
  Graph g = valid_pipeline();
  g.node("work")->set("goal_gate", "true", ValueKind::kBoolean, at(3, 50));
  auto d = only(validate(g, builtin_handler_catalog()), "goal_gate_has_retry");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "goal_gate_has_retry", Severity::kWarning,
                    "goal gate node 'work' has no retry_target or fallback_retry_target", "work",
                    "add retry_target=<node to re-run> to 'work'");
  EXPECT_EQ(d[0].location.column, 50);
}

TEST(LintGoalGateHasRetry, NodeOrGraphTargetSatisfies) {
  Graph g = valid_pipeline();
  g.node("work")->set("goal_gate", "true");
  g.node("work")->set("fallback_retry_target", "work");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
  Graph h = valid_pipeline();
  h.node("work")->set("goal_gate", "true");
  h.data().set("retry_target", "work");
  EXPECT_TRUE(validate(h, builtin_handler_catalog()).empty());
  Graph k = valid_pipeline();
  k.node("work")->set("goal_gate", "false");
  EXPECT_TRUE(validate(k, builtin_handler_catalog()).empty());
}

TEST(LintPromptOnLlmNodes, CodergenWithoutPromptOrLabel) {
  Graph g = valid_pipeline();
  g.node("work")->attrs.erase("prompt");
  auto d = only(validate(g, builtin_handler_catalog()), "prompt_on_llm_nodes");
  ASSERT_EQ(d.size(), 1u);
  expect_diagnostic(d[0], "prompt_on_llm_nodes", Severity::kWarning, "LLM node 'work' has no prompt or label", "work",
                    "add prompt=\"...\" to 'work'");
  EXPECT_EQ(d[0].location.line, 3);
}

TEST(LintPromptOnLlmNodes, EmptyPromptCountsAsMissing) {
  Graph g = valid_pipeline();
  g.node("work")->set("prompt", "");
  EXPECT_EQ(only(validate(g, builtin_handler_catalog()), "prompt_on_llm_nodes").size(), 1u);
}

TEST(LintPromptOnLlmNodes, LabelOrOtherHandlersPass) {
  Graph g = valid_pipeline();
  g.node("work")->attrs.erase("prompt");
  g.node("work")->set("label", "Work");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
  g.node("work")->attrs.erase("label");
  g.node("work")->set("shape", "hexagon");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
  g.node("work")->set("shape", "box");
  g.node("work")->set("type", "tool");
  g.node("work")->set("tool_command", "make");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintFromSettingsExists, MissingAndEmptySettings) {
  Graph g = valid_pipeline();
  g.data().set("graph_max_depth", "3");
  g.node("work")->set("type", "expand_dependency_tree");
  g.node("work")->set("max_depth_from_settings", "graph_max_depth");
  g.node("work")->set("max_nodes_from_settings", "graph_max_nodes", ValueKind::kString, at(3, 60));
  g.node("work")->set("edge_allowlist_from_settings", "");
  auto d = only(validate(g, builtin_handler_catalog()), "from_settings_exists");
  ASSERT_EQ(d.size(), 2u);
  expect_diagnostic(d[0], "from_settings_exists", Severity::kError,
                    "node 'work' has an empty edge_allowlist_from_settings; it must name a graph attribute", "work",
                    "add the setting=... to the graph [...] block");
  EXPECT_EQ(d[0].location.column, 3);
  expect_diagnostic(d[1], "from_settings_exists", Severity::kError,
                    "node 'work' has max_nodes_from_settings='graph_max_nodes', but the graph has no attribute "
                    "'graph_max_nodes'",
                    "work", "add graph_max_nodes=... to the graph [...] block");
  EXPECT_EQ(d[1].location.column, 60);
}

TEST(LintFromSettingsExists, ExistingSettingPasses) {
  Graph g = valid_pipeline();
  g.data().set("evidence_budget_tokens", "900");
  g.node("work")->set("budget_tokens_from_settings", "evidence_budget_tokens");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintAttributeType, NodeAttributes) {
  Graph g = valid_pipeline();
  g.node("work")->set("max_retries", "three", ValueKind::kBare, at(3, 11));
  g.node("work")->set("goal_gate", "yes", ValueKind::kBare, at(3, 12));
  g.node("work")->set("timeout", "5 minutes", ValueKind::kString, at(3, 13));
  g.node("work")->set("auto_status", "1", ValueKind::kInteger, at(3, 14));
  g.node("work")->set("allow_partial", "TRUE", ValueKind::kBare, at(3, 15));
  g.node("work")->set("retry_target", "work");
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_type");
  ASSERT_EQ(d.size(), 5u);
  expect_diagnostic(d[0], "attribute_type", Severity::kError,
                    "node 'work': max_retries must be a non-negative integer, got 'three'", "work",
                    "use a whole number such as 2");
  expect_diagnostic(d[1], "attribute_type", Severity::kError, "node 'work': goal_gate must be true or false, got 'yes'",
                    "work", "use true or false");
  expect_diagnostic(d[2], "attribute_type", Severity::kError,
                    "node 'work': timeout must be a duration such as 250ms, 900s, 15m, 2h or 1d, got '5 minutes'",
                    "work", "write a whole number followed by ms, s, m, h or d");
  EXPECT_EQ(d[3].message, "node 'work': auto_status must be true or false, got '1'");
  EXPECT_EQ(d[4].message, "node 'work': allow_partial must be true or false, got 'TRUE'");
  EXPECT_EQ(d[4].location.column, 15);
}

TEST(LintAttributeType, NegativeRetriesAndGraphAndEdge) {
  Graph g = valid_pipeline();
  g.node("work")->set("max_retries", "-1");
  g.data().set("default_max_retries", "2.5");
  g.edge(g.edges()[0]).set("weight", "high");
  g.edge(g.edges()[1]).set("loop_restart", "maybe");
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_type");
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].message, "node 'work': max_retries must be a non-negative integer, got '-1'");
  EXPECT_EQ(d[0].location.line, 3);
  EXPECT_EQ(d[1].message, "edge start -> work: weight must be an integer, got 'high'");
  EXPECT_EQ(*d[1].edge, EdgeIds("start", "work"));
  EXPECT_EQ(d[1].node_id, "");
  EXPECT_EQ(d[2].message, "edge work -> exit: loop_restart must be true or false, got 'maybe'");
  EXPECT_EQ(d[3].message, "graph: default_max_retries must be a non-negative integer, got '2.5'");
  EXPECT_FALSE(d[3].location.known());
}

TEST(LintAttributeType, WellTypedValuesPass) {
  Graph g = valid_pipeline();
  g.node("work")->set("max_retries", "3");
  g.node("work")->set("timeout", "900s");
  g.node("work")->set("allow_partial", "true");
  g.edge(g.edges()[0]).set("weight", "-2");
  g.data().set("default_max_retry", "0");
  EXPECT_TRUE(validate(g, builtin_handler_catalog()).empty());
}

TEST(LintAttributeSpelling, NodeEdgeAndGraphTypos) {
  Graph g = valid_pipeline();
  g.node("work")->set("promt", "x", ValueKind::kString, at(3, 25));
  g.edge(g.edges()[1]).set("conditon", "outcome=success");
  g.data().set("goall", "ship it");
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_spelling");
  ASSERT_EQ(d.size(), 3u);
  expect_diagnostic(d[0], "attribute_spelling", Severity::kWarning, "unknown attribute 'promt'; did you mean 'prompt'?",
                    "work", "rename 'promt' to 'prompt'");
  EXPECT_EQ(d[0].location.column, 25);
  expect_diagnostic(d[1], "attribute_spelling", Severity::kWarning,
                    "unknown attribute 'conditon'; did you mean 'condition'?", "", "rename 'conditon' to 'condition'");
  EXPECT_EQ(*d[1].edge, EdgeIds("work", "exit"));
  EXPECT_EQ(d[1].location.line, 6);
  expect_diagnostic(d[2], "attribute_spelling", Severity::kWarning, "unknown attribute 'goall'; did you mean 'goal'?",
                    "", "rename 'goall' to 'goal'");
}

TEST(LintAttributeSpelling, SeedFieldsAndTranspositions) {
  Graph g = valid_pipeline();
  g.node("work")->set("serach_type", "bm25");
  g.node("work")->set("Prompt", "x");
  g.node("work")->set("rankdri", "LR");
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_spelling");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].message, "unknown attribute 'Prompt'; did you mean 'prompt'?");
  EXPECT_EQ(d[1].message, "unknown attribute 'rankdri'; did you mean 'rankdir'?");
  EXPECT_EQ(d[2].message, "unknown attribute 'serach_type'; did you mean 'search_type'?");
}

TEST(LintAttributeSpelling, CommonAliases) {
  Graph g = valid_pipeline();
  g.node("work")->set("command", "make test");
  g.node("work")->set("model", "gpt-5.2");
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_spelling");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].message, "unknown attribute 'command'; did you mean 'tool_command'?");
  EXPECT_EQ(d[0].fix, "rename 'command' to 'tool_command'");
  EXPECT_EQ(d[1].message, "unknown attribute 'model'; did you mean 'llm_model'?");
}

TEST(LintAttributeSpelling, KnownAndDistantNamesPass) {
  Graph g = valid_pipeline();
  for (const char* name : {"rankdir", "fontname", "search_type", "top_k", "budget_tokens_from_settings",
                           "human.default_choice", "my_custom_flag", "foo", "xyz", "on_over", "compact_code"}) {
    g.node("work")->set(name, "v");
  }
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "attribute_spelling").empty());
}

TEST(LintAttributeSpelling, ShortNamesNeedDistanceOne) {
  Graph g = valid_pipeline();
  g.node("work")->set("shap", "box");  // distance 1 from shape
  g.node("work")->set("tpe", "x");     // distance 1 from type
  g.node("work")->set("lbl", "x");     // distance 2 from label: not reported
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_spelling");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].message, "unknown attribute 'shap'; did you mean 'shape'?");
  EXPECT_EQ(d[1].message, "unknown attribute 'tpe'; did you mean 'type'?");
}

TEST(LintAttributeSpelling, SharedDefaultReportedOnce) {
  Graph g = valid_pipeline();
  SourceLocation shared{2, 15, 40};
  g.node("work")->set("thread_di", "t", ValueKind::kString, shared);
  g.node("exit")->set("thread_di", "t", ValueKind::kString, shared);
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_spelling");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].node_id, "work");
  EXPECT_EQ(d[0].message, "unknown attribute 'thread_di'; did you mean 'thread_id'?");
}

}  // namespace
}  // namespace attractor
