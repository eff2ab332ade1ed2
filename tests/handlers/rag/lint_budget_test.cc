// The compact_code_rules and context_budget_settings lint rules: every invalid compact_code
// combination and budget configuration is an error at validation time, located in the DOT file.

#include <gtest/gtest.h>

#include "handlers/rag/compact_code_rules.h"
#include "attractor/check/lint.h"
#include "attractor/check/pipeline_loader.h"
#include "support/lint_test_support.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

using lint_test::only;
using lint_test::valid_pipeline;

std::string rules_error(const std::string& text) {
  CompactRulesParse p = parse_compact_code_rules(text);
  return p.error ? p.error->message : "ok";
}

TEST(CompactCodeRulesTest, RefusesRulesNestedDeeperThanTheJsonLimit) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(rules_error("{\"rules\": " + deep + "}"), "compact_code is nested deeper than 256 levels");
}

TEST(CompactCodeRulesTest, ParsesTheSeedExampleInOrder) {
  CompactRulesParse p = parse_compact_code_rules(
      R"({"rules": [{"language": "sql", "policy": "demand", "inbox_key": "compact_sql"},
                    {"language": "sql", "policy": "threshold", "threshold": 0.4},
                    {"language": "dotnet", "policy": "always"}]})");
  ASSERT_FALSE(p.error);
  ASSERT_EQ(p.rules.size(), 3u);
  EXPECT_EQ(p.rules[0].language, "sql");
  EXPECT_EQ(p.rules[0].policy, CompactPolicy::kDemand);
  EXPECT_EQ(p.rules[0].inbox_key, "compact_sql");
  EXPECT_EQ(p.rules[1].policy, CompactPolicy::kThreshold);
  EXPECT_DOUBLE_EQ(p.rules[1].threshold, 0.4);
  EXPECT_EQ(p.rules[2].language, "dotnet");
  EXPECT_EQ(p.rules[2].policy, CompactPolicy::kAlways);
  EXPECT_EQ(rules_error(R"({"rules": []})"), "ok");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "threshold", "threshold": 1}]})"), "ok");
}

TEST(CompactCodeRulesTest, EveryInvalidCombinationIsRejected) {
  EXPECT_EQ(rules_error(R"([1])"), "compact_code must be a JSON object {\"rules\": [...]}");
  EXPECT_EQ(rules_error(R"({"rule": []})"), "compact_code has unknown key 'rule' (allowed: rules)");
  EXPECT_EQ(rules_error(R"({})"), "compact_code.rules is required (a list of rules)");
  EXPECT_EQ(rules_error(R"({"rules": {"language": "sql"}})"), "compact_code.rules must be a list");
  EXPECT_EQ(rules_error(R"({"rules": ["sql"]})"), "compact_code.rules[0] must be an object, got \"sql\"");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "always", "treshold": 0.4}]})"),
            "compact_code.rules[0] has unknown key 'treshold' (allowed: language, policy, threshold, inbox_key)");
  EXPECT_EQ(rules_error(R"({"rules": [{"policy": "always"}]})"),
            "compact_code.rules[0].language is required (sql | dotnet)");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "csharp", "policy": "always"}]})"),
            "compact_code.rules[0].language must be sql | dotnet, got \"csharp\"");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql"}]})"),
            "compact_code.rules[0].policy is required (always | threshold | demand)");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "sometimes"}]})"),
            "compact_code.rules[0].policy must be always | threshold | demand, got \"sometimes\"");
  EXPECT_EQ(
      rules_error(
          R"({"rules": [{"language": "dotnet", "policy": "always"}, {"language": "sql", "policy": "threshold"}]})"),
      "compact_code.rules[1] has policy threshold but no threshold (a number in (0, 1])");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "threshold", "threshold": "0.4"}]})"),
            "compact_code.rules[0].threshold must be a number in (0, 1], got \"0.4\"");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "threshold", "threshold": 0}]})"),
            "compact_code.rules[0].threshold must be in (0, 1], got 0");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "threshold", "threshold": 1.5}]})"),
            "compact_code.rules[0].threshold must be in (0, 1], got 1.5");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "threshold", "threshold": -0.2}]})"),
            "compact_code.rules[0].threshold must be in (0, 1], got -0.2");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "always", "threshold": 0.5}]})"),
            "compact_code.rules[0].threshold is only valid with policy threshold (policy is always)");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "demand"}]})"),
            "compact_code.rules[0] has policy demand but no inbox_key (a non-empty string)");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "demand", "inbox_key": ""}]})"),
            "compact_code.rules[0] has policy demand but no inbox_key (a non-empty string)");
  EXPECT_EQ(rules_error(R"({"rules": [{"language": "sql", "policy": "always", "inbox_key": "k"}]})"),
            "compact_code.rules[0].inbox_key is only valid with policy demand (policy is always)");
  EXPECT_EQ(rules_error(R"({"rules": [)").rfind("compact_code is not valid JSON: ", 0), 0u);
}

TEST(LintCompactCodeRules, ReportsFileLineAndColumnOfTheOffendingKey) {
  std::string dot =
      "digraph G {\n"
      "  graph [max_context_tokens=4000]\n"
      "  start [shape=Mdiamond]\n"
      "  exit [shape=Msquare]\n"
      "  budget [type=manage_context_budget, on_ok=exit, on_over=exit,\n"
      "          compact_code=\"{\\\"rules\\\": [{\\\"language\\\": \\\"sql\\\", \\\"policy\\\": \\\"always\\\"},\n"
      "{\\\"language\\\": \\\"sql\\\", \\\"policy\\\": \\\"threshold\\\", \\\"threshold\\\": 2}]}\"]\n"
      "  start -> budget\n"
      "  budget -> exit\n"
      "}\n";
  LoadedPipeline loaded = load_pipeline_text("budget.dot", dot, builtin_handler_catalog());
  ASSERT_TRUE(loaded.graph.has_value());
  auto d = only(loaded.diagnostics, "compact_code_rules");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, Severity::kError);
  EXPECT_EQ(d[0].node_id, "budget");
  EXPECT_EQ(d[0].message, "node 'budget': compact_code.rules[1].threshold must be in (0, 1], got 2");
  EXPECT_EQ(d[0].location.line, 7);
  EXPECT_EQ(d[0].location.column, 52);  // the "threshold" key (not the policy value) of the second rule
  EXPECT_TRUE(only(loaded.diagnostics, "context_budget_settings").empty());
  std::string text = format_diagnostic(d[0], loaded.source.get());
  EXPECT_EQ(text.rfind("budget.dot:7:52: error: [compact_code_rules]", 0), 0u) << text;
}

TEST(LintCompactCodeRules, ValidRulesAndNodesWithoutCompactCodeAreClean) {
  Graph g = valid_pipeline();
  g.node("work")->set("compact_code", R"({"rules": [{"language": "dotnet", "policy": "always"}]})");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "compact_code_rules").empty());
  g.node("work")->set("compact_code", R"({"rules": [{"language": "dotnet", "policy": "demand"}]})");
  auto d = only(validate(g, builtin_handler_catalog()), "compact_code_rules");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "node 'work': compact_code.rules[0] has policy demand but no inbox_key (a non-empty string)");
}

TEST(LintContextBudgetSettings, FetchNodeTextsBudgetConflictsAndModes) {
  Graph g = valid_pipeline();
  NodeData& work = *g.node("work");
  work.set("type", "fetch_node_texts");
  work.set("max_chars", "1000");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "context_budget_settings").empty());
  work.set("budget_tokens", "900");
  auto d = only(validate(g, builtin_handler_catalog()), "context_budget_settings");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message,
            "node 'work' (fetch_node_texts): max_chars cannot be used together with budget_tokens; choose either "
            "max_chars or a token budget");
  work.attrs.erase("max_chars");
  work.attrs.erase("budget_tokens");
  d = only(validate(g, builtin_handler_catalog()), "context_budget_settings");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("graph attribute max_context_tokens (settings.max_context_tokens) is missing"),
            std::string::npos);
  g.data().set("max_context_tokens", "4096");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "context_budget_settings").empty());
  work.set("prioritization_mode", "random");
  d = only(validate(g, builtin_handler_catalog()), "context_budget_settings");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message,
            "node 'work': prioritization_mode must be one of seed_first | graph_first | balanced, got 'random'");
}

TEST(LintContextBudgetSettings, ManageContextBudgetNeedsMaxContextTokensAndBothRoutes) {
  Graph g = valid_pipeline();
  NodeData& work = *g.node("work");
  work.set("type", "manage_context_budget");
  auto d = only(validate(g, builtin_handler_catalog()), "context_budget_settings");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].message,
            "node 'work' (manage_context_budget) needs graph attribute max_context_tokens (an integer > 0)");
  EXPECT_EQ(d[1].message, "node 'work' (manage_context_budget) needs on_ok");
  EXPECT_EQ(d[2].message, "node 'work' (manage_context_budget) needs on_over");
  g.data().set("max_context_tokens", "0");
  work.set("on_ok", "exit");
  work.set("on_over", "exit");
  d = only(validate(g, builtin_handler_catalog()), "context_budget_settings");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message,
            "node 'work' (manage_context_budget) needs graph attribute max_context_tokens (an integer > 0), got '0'");
  g.data().set("max_context_tokens", "5000");
  EXPECT_TRUE(only(validate(g, builtin_handler_catalog()), "context_budget_settings").empty());
}

}  // namespace
}  // namespace attractor
