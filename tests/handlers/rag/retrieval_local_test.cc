// search_nodes and expand_dependency_tree against the real local index of tests/data/csharp_sql_repo.

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "handlers/rag/expand_dependency_tree.h"
#include "support/handler_test_support.h"
#include "support/retrieval_test_support.h"
#include "handlers/rag/search_nodes.h"

namespace attractor {
namespace {

using nlohmann::json;
using Attrs = std::vector<std::pair<std::string, std::string>>;

const char* kServiceGet = "cs:Acme.Meetings.Services.MeetingService.GetMeetingById(int)";
const char* kRepoGet = "cs:Acme.Meetings.Data.MeetingRepository.GetMeetingById(int)";
const char* kIRepoGet = "cs:Acme.Meetings.Data.IMeetingRepository.GetMeetingById(int)";
const char* kIServiceGet = "cs:Acme.Meetings.Services.IMeetingService.GetMeetingById(int)";

std::vector<std::string> ids_of(const json& list) { return list.get<std::vector<std::string>>(); }

class SearchNodesLocalTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { provider_ = std::make_shared<GraphRetrievalProvider>(); }
  static void TearDownTestSuite() { provider_.reset(); }

  Outcome search(const Attrs& attrs, Context& context) {
    Graph g = testing::retrieval_graph("retrieve", "search_nodes", attrs,
                                       {{"index_dir", testing::LocalRepoIndex::dir()}});
    SearchNodesHandler handler(provider_);
    Outcome o = handler.execute(*g.node("retrieve"), context, g, fixture_.env("retrieve"));
    context.apply_updates(o.context_updates);
    return o;
  }

  Outcome expand(const std::string& allowlist, int depth, int nodes, Context& context) {
    Graph g = testing::retrieval_graph("expand", "expand_dependency_tree",
                                       {{"max_depth_from_settings", "graph_max_depth"},
                                        {"max_nodes_from_settings", "graph_max_nodes"},
                                        {"edge_allowlist_from_settings", "graph_edge_allowlist"}},
                                       {{"index_dir", testing::LocalRepoIndex::dir()},
                                        {"graph_max_depth", std::to_string(depth)},
                                        {"graph_max_nodes", std::to_string(nodes)},
                                        {"graph_edge_allowlist", allowlist}});
    ExpandDependencyTreeHandler handler(provider_);
    Outcome o = handler.execute(*g.node("expand"), context, g, fixture_.env("expand"));
    context.apply_updates(o.context_updates);
    return o;
  }

  static std::shared_ptr<RetrievalBackendProvider> provider_;
  testing::StageFixture fixture_;
};

std::shared_ptr<RetrievalBackendProvider> SearchNodesLocalTest::provider_;

class ExpandDependencyTreeLocalTest : public SearchNodesLocalTest {};

TEST_F(SearchNodesLocalTest, Bm25FindsEveryLayerOfTheMethod) {
  Context c = testing::retrieval_context({{"last_model_response", "GetMeetingById"}, {"snapshot_id", "s1"}});
  Outcome o = search({{"search_type", "bm25"}, {"top_k", "10"}}, c);
  auto seeds = ids_of(o.context_updates["retrieval_seed_nodes"]);
  for (const char* id : {kServiceGet, kRepoGet, kIRepoGet, kIServiceGet}) {
    EXPECT_NE(std::find(seeds.begin(), seeds.end(), id), seeds.end()) << id;
  }
  const json& hits = o.context_updates["retrieval_hits"];
  ASSERT_EQ(hits.size(), seeds.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i]["rank"], static_cast<int>(i) + 1);
    EXPECT_EQ(hits[i]["id"], seeds[i]);
    if (i > 0) EXPECT_GE(hits[i - 1]["score"].get<double>(), hits[i]["score"].get<double>());
  }
  // Deterministic: the same request gives the same answer.
  Context again = testing::retrieval_context({{"last_model_response", "GetMeetingById"}, {"snapshot_id", "s1"}});
  EXPECT_EQ(search({{"search_type", "bm25"}, {"top_k", "10"}}, again).context_updates, o.context_updates);
}

TEST_F(SearchNodesLocalTest, AclHoldsAgainstASpoofingPayload) {
  const Attrs node = {{"search_type", "bm25"}, {"top_k", "10"}, {"query_parser", "jsonish_v1"}};
  const std::string payload =
      R"({"query": "salary salaries payroll meeting", "acl_tags_any": ["hr"], "classification_labels_all": [],
          "filters": {"acl_tags_any": ["hr", "public"], "repository": "acme"}})";
  Context open = testing::retrieval_context({{"last_model_response", payload}});
  auto unrestricted = ids_of(search(node, open).context_updates["retrieval_seed_nodes"]);
  EXPECT_NE(std::find(unrestricted.begin(), unrestricted.end(), "sql:payroll.Salaries"), unrestricted.end());

  Context restricted = testing::retrieval_context(
      {{"last_model_response", payload}, {"retrieval_filters", {{"acl_tags_any", {"public"}}}}});
  auto seeds = ids_of(search(node, restricted).context_updates["retrieval_seed_nodes"]);
  EXPECT_EQ(seeds.size(), 10u);
  for (const auto& id : seeds) {
    EXPECT_EQ(id.find("Payroll"), std::string::npos) << id;
    EXPECT_EQ(id.find("payroll"), std::string::npos) << id;
  }
}

TEST_F(SearchNodesLocalTest, HybridWithPayloadFilter) {
  Context c = testing::retrieval_context(
      {{"last_model_response", "```json\n{'query': 'cancel meeting', 'mode': 'hybrid', 'data_type': 'sql',}\n```"}});
  Outcome o = search({{"search_type", "semantic"}, {"top_k", "4"}, {"query_parser", "jsonish_v1"}}, c);
  auto seeds = ids_of(o.context_updates["retrieval_seed_nodes"]);
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(seeds.front(), "sql:dbo.CancelMeeting");
  for (const auto& id : seeds) EXPECT_EQ(id.rfind("sql:", 0), 0u) << id;
}

TEST_F(SearchNodesLocalTest, KeywordRerankOnlyReordersSemanticCandidates) {
  const std::string query = "cancel meeting stored procedure";
  Context wide = testing::retrieval_context({{"last_model_response", query}});
  auto candidates = ids_of(
      search({{"search_type", "semantic"}, {"top_k", "18"}}, wide).context_updates["retrieval_seed_nodes"]);
  Context c = testing::retrieval_context({{"last_model_response", query}});
  auto seeds = ids_of(search({{"search_type", "semantic"}, {"top_k", "3"}, {"rerank", "keyword_rerank"}}, c)
                          .context_updates["retrieval_seed_nodes"]);
  ASSERT_EQ(seeds.size(), 3u);
  for (const auto& id : seeds) EXPECT_NE(std::find(candidates.begin(), candidates.end(), id), candidates.end()) << id;
  EXPECT_EQ(seeds.front(), "sql:dbo.CancelMeeting");
}

TEST_F(SearchNodesLocalTest, UnknownSnapshotIsATerminalError) {
  Context c = testing::retrieval_context({{"last_model_response", "rooms"}, {"snapshot_id_b", "nope"}});
  try {
    search({{"search_type", "bm25"}, {"top_k", "3"}, {"snapshot_source", "secondary"}}, c);
    FAIL() << "no error";
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    EXPECT_EQ(std::string(e.what()).rfind("node 'retrieve': search failed: ", 0), 0u) << e.what();
  }
}

TEST_F(ExpandDependencyTreeLocalTest, FollowsCallsFromTheSearchSeeds) {
  Context c = testing::retrieval_context({{"retrieval_seed_nodes", {kServiceGet}}});
  Outcome o = expand("calls", 1, 20, c);
  EXPECT_EQ(o.context_updates["graph_seed_nodes"], json({kServiceGet}));
  auto expanded = ids_of(o.context_updates["graph_expanded_nodes"]);
  ASSERT_FALSE(expanded.empty());
  EXPECT_EQ(expanded.front(), kServiceGet);
  std::set<std::string> set(expanded.begin(), expanded.end());
  EXPECT_TRUE(set.count(kIRepoGet));
  EXPECT_TRUE(set.count("cs:Acme.Meetings.Services.ServiceBase.Log(string)"));
  const json& edges = o.context_updates["graph_edges"];
  EXPECT_NE(std::find(edges.begin(), edges.end(),
                      json({{"from_id", kServiceGet}, {"to_id", kIRepoGet}, {"edge_type", "calls"}})),
            edges.end());
  for (const auto& e : edges) EXPECT_EQ(e["edge_type"], "calls");
  EXPECT_EQ(o.context_updates["graph_debug"]["reason"], "ok");
  EXPECT_EQ(o.context_updates["graph_debug"]["expanded_count"], expanded.size());
}

TEST_F(ExpandDependencyTreeLocalTest, HonoursTheLimitAndAcl) {
  Context limited = testing::retrieval_context({{"retrieval_seed_nodes", {kServiceGet}}});
  Outcome o = expand("calls,uses_type,~calls", 3, 2, limited);
  EXPECT_EQ(o.context_updates["graph_expanded_nodes"].size(), 2u);
  EXPECT_EQ(o.context_updates["graph_debug"]["truncated"], true);
  EXPECT_EQ(o.context_updates["graph_debug"]["reason"], "limit_reached");

  Context hidden = testing::retrieval_context(
      {{"retrieval_seed_nodes", {kServiceGet}}, {"retrieval_filters", {{"acl_tags_any", {"hr"}}}}});
  Outcome none = expand("calls", 2, 20, hidden);
  EXPECT_EQ(none.context_updates["graph_seed_nodes"], json::array());
  EXPECT_EQ(none.context_updates["graph_debug"]["reason"], "no_seeds");
}

TEST_F(ExpandDependencyTreeLocalTest, SearchThenExpandPipeline) {
  Context c = testing::retrieval_context({{"last_model_response", "GetMeetingById"},
                                          {"retrieval_filters", {{"acl_tags_any", {"public"}}}},
                                          {"graph_edges", {"stale"}}});
  search({{"search_type", "bm25"}, {"top_k", "4"}}, c);
  EXPECT_EQ(c.get("graph_edges"), json::array());
  Outcome o = expand("calls,reads", 2, 30, c);
  auto seeds = ids_of(*c.get("retrieval_seed_nodes"));
  ASSERT_EQ(seeds.size(), 4u);
  EXPECT_EQ(o.context_updates["graph_seed_nodes"], json(seeds));
  auto expanded = ids_of(o.context_updates["graph_expanded_nodes"]);
  EXPECT_TRUE(std::equal(seeds.begin(), seeds.end(), expanded.begin()));
  std::set<std::string> set(expanded.begin(), expanded.end());
  EXPECT_TRUE(set.count("sql:dbo.Meetings"));  // MeetingRepository.GetMeetingById reads it
  EXPECT_TRUE(set.count("cs:Acme.Meetings.Services.ServiceBase.Log(string)"));
}

}  // namespace
}  // namespace attractor
