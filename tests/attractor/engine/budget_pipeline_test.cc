// fetch_node_texts -> manage_context_budget through the engine: a send_message demand reaches the
// budget step through the inbox and compacts the SQL evidence, the MANAGE_CONTEXT_BUDGET event
// lands in events.jsonl, and an over-budget run routes on_over and re-enqueues the demand.

#include <fstream>

#include <gtest/gtest.h>

#include "support/engine_test_support.h"
#include "handlers/rag/retrieval_support.h"

namespace attractor {
namespace {

using json = nlohmann::json;
using testing::edge;
using testing::node;
using testing::TestRun;

class TextsOnlyBackend : public retrieval::IRetrievalBackend {
 public:
  retrieval::SearchResponse search(const retrieval::SearchRequest&) override { return {}; }
  std::map<std::string, std::string> fetch_texts(const std::vector<std::string>& ids, const std::string&,
                                                 const std::string&, const json&,
                                                 const std::optional<std::string>&) override {
    std::map<std::string, std::string> out;
    for (const auto& id : ids) {
      if (id == "sql:dbo.CancelMeeting") {
        out[id] =
            "CREATE PROCEDURE dbo.CancelMeeting\n    @MeetingId INT\nAS\nBEGIN\n    -- cancel it\n"
            "    UPDATE dbo.Meetings SET Status = 1 WHERE Id = @MeetingId;\n    EXEC dbo.WriteAudit @A = 1;\nEND";
      }
    }
    return out;
  }
  retrieval::ExpandResult expand(const retrieval::ExpandRequest&) override { return {}; }
  std::vector<retrieval::NodeInfo> describe(const std::vector<std::string>& ids, const std::string&, const std::string&,
                                            const json&, const std::optional<std::string>&) override {
    std::vector<retrieval::NodeInfo> out;
    for (const auto& id : ids) out.push_back({id, "db/procedures/CancelMeeting.sql", "sql", "procedure", id, 1, 9});
    return out;
  }
};

Graph budget_pipeline(const char* max_context_tokens) {
  Graph g;
  g.data().set("max_context_tokens", max_context_tokens);
  g.data().set("max_turn_loops", "1");
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "ask",
       {{"type", "send_message"},
        {"target_step_id", "budget"},
        {"topic", "compact_sql"},
        {"payload", R"({"reason": "demo"})"}});
  node(g, "fetch", {{"type", "fetch_node_texts"}, {"budget_tokens", "500"}});
  node(g, "budget",
       {{"type", "manage_context_budget"},
        {"on_ok", "answer"},
        {"on_over", "guard"},
        {"divide_new_content", "<<<New content"},
        {"compact_code", R"({"rules": [{"language": "sql", "policy": "demand", "inbox_key": "compact_sql"}]})"}});
  node(g, "guard",
       {{"type", "loop_guard"},
        {"max_turn_loops_from_settings", "max_turn_loops"},
        {"on_allow", "budget"},
        {"on_deny", "answer"}});
  node(g, "answer", {{"prompt", "answer"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "ask");
  edge(g, "ask", "fetch");
  edge(g, "fetch", "budget");
  edge(g, "budget", "answer");
  edge(g, "budget", "guard");
  edge(g, "guard", "budget");
  edge(g, "guard", "answer");
  edge(g, "answer", "exit");
  return g;
}

std::vector<json> budget_events(const std::string& run_dir) {
  std::ifstream in(run_dir + "/events.jsonl");
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) {
    json e = json::parse(line);
    if (e.dump().find("MANAGE_CONTEXT_BUDGET") != std::string::npos) out.push_back(e);
  }
  return out;
}

json seed() {
  return json{
      {"repository", "acme"}, {"branch", "main"}, {"retrieval_seed_nodes", json::array({"sql:dbo.CancelMeeting"})}};
}

TEST(BudgetPipelineTest, DemandCompactsTheSqlEvidenceAndTheEventIsInEventsJsonl) {
  TestRun t;
  t.services.retrieval = std::make_shared<FixedRetrievalProvider>(std::make_shared<TextsOnlyBackend>());
  RunResult r = t.run(budget_pipeline("4000"), make_default_registry(t.services), seed());
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(r.checkpoint.completed_nodes, (std::vector<std::string>{"start", "ask", "fetch", "budget", "answer"}));
  json blocks = r.checkpoint.context["context_blocks"];
  EXPECT_EQ(blocks, json::array({"<<<New content",
                                 "--- NODE ---\nid: sql:dbo.CancelMeeting\npath: db/procedures/CancelMeeting.sql\n"
                                 "language: sql\ncompact: true\ntext:\nCREATE PROCEDURE dbo.CancelMeeting\n"
                                 "    @MeetingId INT\nAS ... uses: dbo.Meetings, dbo.WriteAudit"}));
  EXPECT_EQ(r.checkpoint.context["node_texts"], json::array());
  auto events = budget_events(r.run_dir);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].dump().find("\"decision\":\"on_ok\""), std::string::npos) << events[0].dump();
  EXPECT_NE(events[0].dump().find("\"policy\":\"demand\""), std::string::npos) << events[0].dump();
}

TEST(BudgetPipelineTest, OverBudgetRoutesOnOverAndKeepsTheDemandForTheRetry) {
  TestRun t;
  t.services.retrieval = std::make_shared<FixedRetrievalProvider>(std::make_shared<TextsOnlyBackend>());
  // The compacted block fits alone, but not with the earlier context: on_over twice (the demand is
  // re-enqueued, so the retry compacts again), then loop_guard denies and the answer runs.
  json s = seed();
  s["context_blocks"] = json::array({std::string(400, 'x') + " earlier context"});
  RunResult r = t.run(budget_pipeline("80"), make_default_registry(t.services), s);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(r.checkpoint.completed_nodes,
            (std::vector<std::string>{"start", "ask", "fetch", "budget", "guard", "budget", "guard", "answer"}));
  EXPECT_EQ(r.checkpoint.context["context_blocks"].size(), 1u);
  EXPECT_EQ(r.checkpoint.context["node_texts"].size(), 1u);
  auto events = budget_events(r.run_dir);
  ASSERT_EQ(events.size(), 2u);
  for (const auto& e : events) {
    EXPECT_NE(e.dump().find("\"decision\":\"on_over\""), std::string::npos) << e.dump();
    EXPECT_NE(e.dump().find("\"compacted\":true"), std::string::npos) << e.dump();
  }
}

}  // namespace
}  // namespace attractor
