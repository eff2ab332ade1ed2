// manage_context_budget (docs/retrieval.md): formatting, on_ok / on_over, the misconfiguration guard,
// compact_code policies (always, threshold, demand; first firing rule per language wins), demand
// re-enqueueing, the divider and the MANAGE_CONTEXT_BUDGET trace event.

#include "handlers/rag/manage_context_budget.h"

#include <gtest/gtest.h>

#include "attractor/tokens/token_counter.h"
#include "handlers/rag/code_classifier.h"
#include "handlers/rag/code_compactor.h"
#include "support/handler_test_support.h"

namespace attractor {
namespace {

using nlohmann::json;

const char* kSql =
    "CREATE PROCEDURE dbo.CancelMeeting\n    @MeetingId INT\nAS\nBEGIN\n    -- mark it\n"
    "    UPDATE dbo.Meetings SET Status = 1 WHERE Id = @MeetingId;\n    EXEC dbo.WriteAudit @Action = 'cancel';\nEND";
const char* kCs =
    "public Meeting GetMeetingById(int id)\n{\n    // load it\n    using var c = _factory.Open();\n"
    "    return c.QuerySingle<Meeting>(\"SELECT Id, Title FROM dbo.Meetings WHERE Id = @id\", new { id });\n}";
const char* kPlain = "The meeting room booking rules for the Acme office.";

Graph budget_graph(std::int64_t max_tokens, const std::map<std::string, std::string>& attrs = {}) {
  Graph g;
  Vertex v = g.add_node("budget");
  g.node(v).set("type", "manage_context_budget");
  g.node(v).set("on_ok", "answer");
  g.node(v).set("on_over", "summarize");
  for (const auto& [k, val] : attrs) g.node(v).set(k, val);
  if (max_tokens > 0) g.data().set("max_context_tokens", std::to_string(max_tokens));
  return g;
}

json item(const std::string& id, const std::string& text, const std::string& path = "") {
  json j = {{"id", id}, {"node_id", id}, {"text", text}, {"is_seed", true}, {"depth", 0}, {"parent_id", nullptr}};
  if (!path.empty()) j["path"] = path;
  return j;
}

struct BudgetRun {
  Outcome outcome;
  std::vector<Event> events;
};

BudgetRun run_budget(const Graph& g, Context& c) {
  testing::StageFixture f;
  ManageContextBudgetHandler h;
  BudgetRun r{h.execute(*g.node("budget"), c, g, f.env("budget")), {}};
  r.events = f.events.events();
  return r;
}

std::string error_of(const Graph& g, Context& c) {
  try {
    run_budget(g, c);
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    return e.what();
  }
  return "no error";
}

std::size_t tokens(const std::string& text) { return token_counter_for("o200k_base")->count(text); }

std::string raw_block(const std::string& id, const std::string& path, const std::string& language,
                      const std::string& text) {
  return format_node_block(id, path, language, false, text);
}

TEST(ManageContextBudgetTest, FormatsANodeBlockPerSeed003) {
  EXPECT_EQ(
      format_node_block("sql:dbo.X", "db/x.sql", "sql", true, "CREATE TABLE dbo.X (Id INT);"),
      "--- NODE ---\nid: sql:dbo.X\npath: db/x.sql\nlanguage: sql\ncompact: true\ntext:\nCREATE TABLE dbo.X (Id INT);");
  EXPECT_EQ(format_node_block("", "", "unknown", false, "hi"),
            "--- NODE ---\nlanguage: unknown\ncompact: false\ntext:\nhi");
}

TEST(ManageContextBudgetTest, AllFitAppendsDividerAndBlocksClearsNodeTextsAndRoutesOnOk) {
  Graph g = budget_graph(100000, {{"divide_new_content", "<<<New content"}});
  Context c;
  c.set("context_blocks", json::array({"earlier evidence"}));
  c.set("node_texts", json::array({item("p", kSql, "db/p.sql"), item("m", kCs), item("t", kPlain)}));
  BudgetRun r = run_budget(g, c);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.outcome.suggested_next_ids, (std::vector<std::string>{"answer"}));
  json expected = json::array({"earlier evidence", "<<<New content", raw_block("p", "db/p.sql", "sql", kSql),
                               raw_block("m", "", "dotnet", kCs), raw_block("t", "", "unknown", kPlain)});
  EXPECT_EQ(r.outcome.context_updates["context_blocks"], expected);
  EXPECT_EQ(r.outcome.context_updates["node_texts"], json::array());
  EXPECT_TRUE(r.outcome.messages.empty());
  ASSERT_EQ(r.events.size(), 1u);
  const Event& e = r.events[0];
  EXPECT_EQ(e.name, "MANAGE_CONTEXT_BUDGET");
  EXPECT_EQ(e.fields["decision"], "on_ok");
  EXPECT_EQ(e.fields["next"], "answer");
  EXPECT_EQ(e.fields["context_tokens"], tokens("earlier evidence"));
  EXPECT_EQ(e.fields["divider_tokens"], tokens("<<<New content"));
  ASSERT_EQ(e.fields["nodes"].size(), 3u);
  EXPECT_EQ(e.fields["nodes"][0], (json{{"id", "p"},
                                        {"language", "sql"},
                                        {"kind", "SQL"},
                                        {"policy", nullptr},
                                        {"compacted", false},
                                        {"tokens_before", tokens(raw_block("p", "db/p.sql", "sql", kSql))},
                                        {"tokens_after", tokens(raw_block("p", "db/p.sql", "sql", kSql))}}));
  EXPECT_EQ(e.fields["nodes"][1]["kind"], "DOTNET_WITH_SQL");
  EXPECT_EQ(e.fields["nodes"][2]["language"], "unknown");
}

TEST(ManageContextBudgetTest, OverflowChangesNothingAndRoutesOnOverWithoutDivider) {
  std::string block = raw_block("t", "", "unknown", kPlain);
  std::size_t context = tokens("earlier evidence");
  std::size_t need = context + tokens("<<<New content") + tokens(block);
  Graph g = budget_graph(static_cast<std::int64_t>(need) - 1, {{"divide_new_content", "<<<New content"}});
  Context c;
  c.set("context_blocks", json::array({"earlier evidence"}));
  c.set("node_texts", json::array({item("t", kPlain)}));
  BudgetRun r = run_budget(g, c);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.outcome.suggested_next_ids, (std::vector<std::string>{"summarize"}));
  EXPECT_EQ(r.outcome.context_updates, json::object());
  EXPECT_EQ(r.events[0].fields["decision"], "on_over");
  EXPECT_EQ(r.events[0].fields["total_tokens"], need);
  Graph exact = budget_graph(static_cast<std::int64_t>(need), {{"divide_new_content", "<<<New content"}});
  EXPECT_EQ(run_budget(exact, c).outcome.suggested_next_ids, (std::vector<std::string>{"answer"}));
}

TEST(ManageContextBudgetTest, RetrievalBufferAloneOverTheBudgetIsAMisconfiguration) {
  std::size_t buffer = tokens(raw_block("t", "", "unknown", kPlain));
  Graph g = budget_graph(static_cast<std::int64_t>(buffer) - 1);
  Context c;
  c.set("node_texts", json::array({item("t", kPlain)}));
  EXPECT_EQ(error_of(g, c),
            fmt::format("PIPELINE_BUDGET_MISCONFIG: fetch_node_texts produced retrieval texts that cannot fit into "
                        "settings.max_context_tokens (node 'budget': 1 node texts need {} tokens after compaction, "
                        "max_context_tokens is {})",
                        buffer, buffer - 1));
}

TEST(ManageContextBudgetTest, EmptyBufferRoutesOnOkWithoutDivider) {
  Graph g = budget_graph(10, {{"divide_new_content", "<<<New content"}});
  Context c;
  c.set("context_blocks", json::array({"a"}));
  BudgetRun r = run_budget(g, c);
  EXPECT_EQ(r.outcome.context_updates["context_blocks"], json::array({"a"}));
  EXPECT_EQ(r.outcome.suggested_next_ids, (std::vector<std::string>{"answer"}));
}

TEST(ManageContextBudgetTest, AlwaysPolicyCompactsMatchingLanguageOnly) {
  Graph g = budget_graph(100000, {{"compact_code", R"({"rules": [{"language": "dotnet", "policy": "always"}]})"}});
  Context c;
  c.set("node_texts", json::array({item("m", kCs), item("p", kSql)}));
  BudgetRun r = run_budget(g, c);
  const json& blocks = r.outcome.context_updates["context_blocks"];
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0],
            "--- NODE ---\nid: m\nlanguage: dotnet\ncompact: true\ntext:\n"
            "public Meeting GetMeetingById(int id) { ... sql: dbo.Meetings }");
  EXPECT_EQ(blocks[1], raw_block("p", "", "sql", kSql));
  const json& nodes = r.events[0].fields["nodes"];
  EXPECT_EQ(nodes[0]["policy"], "always");
  EXPECT_EQ(nodes[0]["compacted"], true);
  EXPECT_LT(nodes[0]["tokens_after"].get<int>(), nodes[0]["tokens_before"].get<int>());
  EXPECT_EQ(nodes[1]["compacted"], false);
}

TEST(ManageContextBudgetTest, CompactionCanMakeTheBatchFit) {
  std::string compact_block = format_node_block("p", "", "sql", true, compact_sql(kSql));
  EXPECT_EQ(compact_sql(kSql),
            "CREATE PROCEDURE dbo.CancelMeeting\n    @MeetingId INT\nAS ... uses: dbo.Meetings, dbo.WriteAudit");
  std::int64_t max = static_cast<std::int64_t>(tokens(compact_block));
  ASSERT_LT(max, static_cast<std::int64_t>(tokens(raw_block("p", "", "sql", kSql))));
  Context c;
  c.set("node_texts", json::array({item("p", kSql)}));
  Graph plain = budget_graph(max);
  EXPECT_NE(error_of(plain, c).find("PIPELINE_BUDGET_MISCONFIG"), std::string::npos);
  Graph compacting = budget_graph(max, {{"compact_code", R"({"rules": [{"language": "sql", "policy": "always"}]})"}});
  BudgetRun r = run_budget(compacting, c);
  EXPECT_EQ(r.outcome.context_updates["context_blocks"], json::array({compact_block}));
}

TEST(ManageContextBudgetTest, ThresholdFiresOnlyWhenTheRawCandidateWouldCrossIt) {
  std::string raw = raw_block("p", "", "sql", kSql);
  std::size_t context = tokens("earlier evidence");
  std::size_t crossing = context + tokens(raw);  // running total with the raw node
  const char* rules = R"({"rules": [{"language": "sql", "policy": "threshold", "threshold": 0.5}]})";
  Context c;
  c.set("context_blocks", json::array({"earlier evidence"}));
  c.set("node_texts", json::array({item("p", kSql)}));
  // 0.5 * max == crossing: not exceeded, no compaction.
  Graph at = budget_graph(static_cast<std::int64_t>(crossing * 2), {{"compact_code", rules}});
  BudgetRun not_fired = run_budget(at, c);
  EXPECT_EQ(not_fired.events[0].fields["nodes"][0]["compacted"], false);
  EXPECT_EQ(not_fired.events[0].fields["nodes"][0]["policy"], nullptr);
  // 0.5 * max == crossing - 0.5: exceeded, compacted.
  Graph below = budget_graph(static_cast<std::int64_t>(crossing * 2 - 1), {{"compact_code", rules}});
  BudgetRun fired = run_budget(below, c);
  EXPECT_EQ(fired.events[0].fields["nodes"][0]["compacted"], true);
  EXPECT_EQ(fired.events[0].fields["nodes"][0]["policy"], "threshold");
}

const char* kDemandRules =
    R"({"rules": [{"language": "sql", "policy": "demand", "inbox_key": "compact_sql"},
                  {"language": "sql", "policy": "threshold", "threshold": 0.4},
                  {"language": "dotnet", "policy": "always"}]})";

TEST(ManageContextBudgetTest, DemandFiresOnAConsumedMessageForThisStepAndTopic) {
  Graph g = budget_graph(100000, {{"compact_code", kDemandRules}});
  Context c;
  c.set("node_texts", json::array({item("p", kSql)}));
  c.set("inbox_last_consumed",
        json::array({{{"target_step_id", "other"}, {"topic", "compact_sql"}, {"payload", nullptr}},
                     {{"target_step_id", "budget"}, {"topic", "compact_cs"}, {"payload", nullptr}}}));
  EXPECT_EQ(run_budget(g, c).events[0].fields["nodes"][0]["compacted"], false);  // threshold 40000 not crossed either
  c.set("inbox_last_consumed",
        json::array({{{"target_step_id", "budget"}, {"topic", "compact_sql"}, {"payload", {{"why", "big"}}}}}));
  BudgetRun r = run_budget(g, c);
  EXPECT_EQ(r.events[0].fields["nodes"][0]["policy"], "demand");
  EXPECT_EQ(r.events[0].fields["nodes"][0]["compacted"], true);
  EXPECT_TRUE(r.outcome.messages.empty());  // on_ok: the demand is used up
}

TEST(ManageContextBudgetTest, FirstFiringRuleOfTheLanguageWins) {
  // No demand message: the sql demand rule does not fire, the sql threshold rule does (any text
  // crosses 0.4 * 10 tokens), so the policy is threshold.
  std::string compact_block = format_node_block("p", "", "sql", true, compact_sql(kSql));
  Graph g = budget_graph(static_cast<std::int64_t>(tokens(compact_block)), {{"compact_code", kDemandRules}});
  Context c;
  c.set("node_texts", json::array({item("p", kSql)}));
  BudgetRun r = run_budget(g, c);
  EXPECT_EQ(r.events[0].fields["nodes"][0]["policy"], "threshold");
  EXPECT_EQ(r.outcome.suggested_next_ids, (std::vector<std::string>{"answer"}));
}

TEST(ManageContextBudgetTest, OnOverReEnqueuesTheConsumedDemandMessages) {
  std::string compact_block = format_node_block("p", "", "sql", true, compact_sql(kSql));
  Graph g = budget_graph(static_cast<std::int64_t>(tokens(compact_block)) + 1, {{"compact_code", kDemandRules}});
  Context c;
  c.set("context_blocks", json::array({"a long earlier context that does not leave room"}));
  c.set("node_texts", json::array({item("p", kSql)}));
  json demand = {{"target_step_id", "budget"}, {"topic", "compact_sql"}, {"payload", {{"why", "big"}}}};
  json unrelated = {{"target_step_id", "budget"}, {"topic", "hello"}, {"payload", 1}};
  c.set("inbox_last_consumed", json::array({demand, unrelated}));
  BudgetRun r = run_budget(g, c);
  EXPECT_EQ(r.outcome.suggested_next_ids, (std::vector<std::string>{"summarize"}));
  EXPECT_EQ(r.outcome.messages, json::array({demand}));
  EXPECT_EQ(r.outcome.context_updates, json::object());
}

TEST(ManageContextBudgetTest, UnknownTextIsNeverCompacted) {
  Graph g = budget_graph(100000, {{"compact_code", R"({"rules": [{"language": "sql", "policy": "always"},
                                                                {"language": "dotnet", "policy": "always"}]})"}});
  Context c;
  c.set("node_texts", json::array({item("t", kPlain)}));
  BudgetRun r = run_budget(g, c);
  EXPECT_EQ(r.events[0].fields["nodes"][0]["compacted"], false);
  EXPECT_EQ(r.outcome.context_updates["context_blocks"], json::array({raw_block("t", "", "unknown", kPlain)}));
}

TEST(ManageContextBudgetTest, ConfigurationErrorsAtRunTime) {
  Context c;
  c.set("node_texts", json::array({item("t", kPlain)}));
  EXPECT_EQ(
      error_of(budget_graph(0), c),
      "node 'budget' (manage_context_budget): graph attribute max_context_tokens (settings.max_context_tokens) is "
      "required");
  Graph zero = budget_graph(1);
  zero.data().set("max_context_tokens", "0");
  EXPECT_EQ(
      error_of(zero, c),
      "node 'budget' (manage_context_budget): graph attribute max_context_tokens must be an integer > 0, got '0'");
  Graph bad_rules = budget_graph(1000,
                                 {{"compact_code", R"({"rules": [{"language": "sql", "policy": "threshold"}]})"}});
  EXPECT_EQ(error_of(bad_rules, c),
            "node 'budget' (manage_context_budget): compact_code.rules[0] has policy threshold but no threshold (a "
            "number in (0, 1])");
  Graph no_over = budget_graph(1000);
  no_over.node("budget")->attrs.erase("on_over");
  EXPECT_EQ(
      error_of(no_over, c),
      "node 'budget' (manage_context_budget): on_over is required (the node to go to when the budget is exceeded)");
  Context bad_items;
  bad_items.set("node_texts", json::array({"just a string"}));
  EXPECT_EQ(error_of(budget_graph(1000), bad_items),
            "node 'budget' (manage_context_budget): context key 'node_texts' items must be objects with a string text, "
            "got \"just a string\"");
}

}  // namespace
}  // namespace attractor
