// fetch_node_texts (docs/retrieval.md): candidate order, budget modes and their errors, atomic
// snippets, scope of fetch_texts, output items and graph_debug; plus the real local backend over
// tests/data/csharp_sql_repo.

#include "handlers/rag/fetch_node_texts.h"

#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "attractor/tokens/token_counter.h"
#include "handlers/rag/evidence_order.h"
#include "support/handler_test_support.h"
#include "retrieval/indexer.h"
#include "retrieval/backend.h"

namespace attractor {
namespace {

using nlohmann::json;

/// An in-memory backend: texts by id, a set of ids hidden by the scope, and the calls it received.
class FakeTextBackend : public retrieval::IRetrievalBackend {
 public:
  std::map<std::string, std::string> texts;
  std::set<std::string> hidden;
  struct Call {
    std::vector<std::string> ids;
    std::string repository;
    std::string branch;
    json filters;
    std::optional<std::string> active_index;
  };
  std::vector<Call> fetch_calls;
  std::vector<std::vector<std::string>> describe_calls;

  retrieval::SearchResponse search(const retrieval::SearchRequest&) override {
    throw std::logic_error("search must not be called");
  }
  std::map<std::string, std::string> fetch_texts(const std::vector<std::string>& ids, const std::string& repository,
                                                 const std::string& branch, const json& filters,
                                                 const std::optional<std::string>& active_index) override {
    fetch_calls.push_back({ids, repository, branch, filters, active_index});
    std::map<std::string, std::string> out;
    for (const auto& id : ids) {
      if (texts.count(id) && !hidden.count(id)) out[id] = texts[id];
    }
    return out;
  }
  retrieval::ExpandResult expand(const retrieval::ExpandRequest&) override {
    throw std::logic_error("expand must not be called");
  }
  std::vector<retrieval::NodeInfo> describe(const std::vector<std::string>& ids, const std::string&, const std::string&,
                                            const json&, const std::optional<std::string>&) override {
    describe_calls.push_back(ids);
    std::vector<retrieval::NodeInfo> out;
    for (const auto& id : ids) {
      retrieval::NodeInfo n;
      n.id = id;
      n.path = "src/" + id + ".cs";
      n.language = "csharp";
      out.push_back(n);
    }
    return out;
  }
};

Graph fetch_graph(const std::map<std::string, std::string>& node_attrs,
                  const std::map<std::string, std::string>& graph_attrs = {}) {
  Graph g;
  Vertex v = g.add_node("fetch");
  g.node(v).set("type", "fetch_node_texts");
  for (const auto& [k, val] : node_attrs) g.node(v).set(k, val);
  for (const auto& [k, val] : graph_attrs) g.data().set(k, val);
  return g;
}

Context scoped_context(json seeds, json expanded = json::array(), json edges = json::array()) {
  Context c;
  c.set("repository", "acme");
  c.set("branch", "main");
  c.set("retrieval_seed_nodes", std::move(seeds));
  c.set("graph_expanded_nodes", std::move(expanded));
  c.set("graph_edges", std::move(edges));
  return c;
}

struct FetchRun {
  Outcome outcome;
  std::shared_ptr<FakeTextBackend> backend;
  std::vector<Event> events;
};

FetchRun run_fetch(const Graph& g, Context& c, std::shared_ptr<FakeTextBackend> backend) {
  testing::StageFixture f;
  FetchNodeTextsHandler h(std::make_shared<FixedRetrievalProvider>(backend));
  FetchRun r{h.execute(*g.node("fetch"), c, g, f.env("fetch")), backend, {}};
  r.events = f.events.events();
  return r;
}

std::vector<std::string> ids_of(const json& node_texts) {
  std::vector<std::string> ids;
  for (const auto& item : node_texts) ids.push_back(item["id"].get<std::string>());
  return ids;
}

std::string error_of(const Graph& g, Context& c) {
  try {
    run_fetch(g, c, std::make_shared<FakeTextBackend>());
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    return e.what();
  }
  return "no error";
}

std::vector<std::string> order_ids(const std::vector<EvidenceCandidate>& c) {
  std::vector<std::string> ids;
  for (const auto& x : c) ids.push_back(x.id);
  return ids;
}

// Seeds S1, S2; S1 -> A -> C, S2 -> B, D reached backwards from S2 (D -> S2); E unreached.
const std::vector<retrieval::GraphEdge> kEdges = {
    {"S1", "A", "calls"}, {"A", "C", "calls"}, {"S2", "B", "reads"}, {"D", "S2", "calls"}};
const std::vector<std::string> kExpanded = {"S1", "S2", "A", "B", "C", "D", "E"};

TEST(FetchNodeTextsOrderTest, SeedFirstListsSeedsThenGraphNodesByDepthThenId) {
  auto c = order_candidates({"S1", "S2"}, kExpanded, kEdges, PrioritizationMode::kSeedFirst);
  EXPECT_EQ(order_ids(c), (std::vector<std::string>{"S1", "S2", "A", "B", "D", "E", "C"}));
}

TEST(FetchNodeTextsOrderTest, GraphFirstPutsEachSeedBeforeItsOwnSubtree) {
  auto c = order_candidates({"S1", "S2"}, kExpanded, kEdges, PrioritizationMode::kGraphFirst);
  EXPECT_EQ(order_ids(c), (std::vector<std::string>{"S1", "A", "C", "S2", "B", "D", "E"}));
}

TEST(FetchNodeTextsOrderTest, BalancedInterleavesStartingWithASeedThenAppendsTheRest) {
  auto c = order_candidates({"S1", "S2"}, kExpanded, kEdges, PrioritizationMode::kBalanced);
  EXPECT_EQ(order_ids(c), (std::vector<std::string>{"S1", "A", "S2", "B", "D", "E", "C"}));
  auto more_seeds = order_candidates({"S3", "S1", "S2"}, {"S1", "A"}, kEdges, PrioritizationMode::kBalanced);
  EXPECT_EQ(order_ids(more_seeds), (std::vector<std::string>{"S3", "A", "S1", "S2"}));
}

TEST(FetchNodeTextsOrderTest, DepthAndParentComeFromTheBreadthFirstTree) {
  auto c = order_candidates({"S1", "S2"}, kExpanded, kEdges, PrioritizationMode::kSeedFirst);
  std::vector<EvidenceCandidate> expected = {
      {"S1", true, 0, std::nullopt}, {"S2", true, 0, std::nullopt}, {"A", false, 1, "S1"}, {"B", false, 1, "S2"},
      {"D", false, 1, "S2"},         {"E", false, 1, std::nullopt}, {"C", false, 2, "A"}};
  EXPECT_EQ(c, expected);
}

TEST(FetchNodeTextsOrderTest, DuplicatesAreDroppedAndSeedsInTheExpandedListStaySeeds) {
  auto c = order_candidates({"S1", "S1", "S2"}, {"S2", "A", "A"}, {}, PrioritizationMode::kSeedFirst);
  std::vector<EvidenceCandidate> expected = {
      {"S1", true, 0, std::nullopt}, {"S2", true, 0, std::nullopt}, {"A", false, 1, std::nullopt}};
  EXPECT_EQ(c, expected);
}

TEST(FetchNodeTextsOrderTest, ModeNames) {
  EXPECT_EQ(parse_prioritization_mode("seed_first"), PrioritizationMode::kSeedFirst);
  EXPECT_EQ(parse_prioritization_mode("graph_first"), PrioritizationMode::kGraphFirst);
  EXPECT_EQ(parse_prioritization_mode("balanced"), PrioritizationMode::kBalanced);
  EXPECT_EQ(parse_prioritization_mode("Balanced"), std::nullopt);
  EXPECT_EQ(to_string(PrioritizationMode::kGraphFirst), "graph_first");
}

TEST(FetchNodeTextsBudgetTest, ExplicitAndImplicitBudgets) {
  EvidenceBudget chars = resolve_evidence_budget(*fetch_graph({{"max_chars", "12000"}}).node("fetch"),
                                                 fetch_graph({{"max_chars", "12000"}}));
  EXPECT_TRUE(chars.chars);
  EXPECT_EQ(chars.limit, 12000);
  EXPECT_EQ(chars.source, "max_chars");
  Graph tokens = fetch_graph({{"budget_tokens", "900"}});
  EXPECT_EQ(resolve_evidence_budget(*tokens.node("fetch"), tokens).limit, 900);
  Graph settings = fetch_graph({{"budget_tokens_from_settings", "evidence_budget_tokens"}},
                               {{"evidence_budget_tokens", "900"}});
  EvidenceBudget from_settings = resolve_evidence_budget(*settings.node("fetch"), settings);
  EXPECT_FALSE(from_settings.chars);
  EXPECT_EQ(from_settings.limit, 900);
  Graph implicit = fetch_graph({}, {{"max_context_tokens", "4096"}});
  EvidenceBudget b = resolve_evidence_budget(*implicit.node("fetch"), implicit);
  EXPECT_EQ(b.limit, 2867);  // floor(0.70 * 4096) = floor(2867.2)
  EXPECT_EQ(b.source, "implicit");
  Graph ten = fetch_graph({}, {{"max_context_tokens", "10"}});
  EXPECT_EQ(resolve_evidence_budget(*ten.node("fetch"), ten).limit, 7);
  Graph two = fetch_graph({}, {{"max_context_tokens", "2"}});
  EXPECT_EQ(resolve_evidence_budget(*two.node("fetch"), two).limit, 1);
}

TEST(FetchNodeTextsBudgetTest, EveryInvalidBudgetIsAnError) {
  struct Case {
    std::map<std::string, std::string> node;
    std::map<std::string, std::string> graph;
    std::string message;
  };
  std::vector<Case> cases = {
      {{{"max_chars", "100"}, {"budget_tokens", "50"}},
       {},
       "node 'fetch' (fetch_node_texts): max_chars cannot be used together with budget_tokens; choose either max_chars "
       "or a token budget"},
      {{{"max_chars", "100"}, {"budget_tokens_from_settings", "b"}},
       {{"b", "5"}},
       "node 'fetch' (fetch_node_texts): max_chars cannot be used together with budget_tokens_from_settings; choose "
       "either max_chars or a token budget"},
      {{{"budget_tokens", "100"}, {"budget_tokens_from_settings", "b"}},
       {{"b", "5"}},
       "node 'fetch' (fetch_node_texts): budget_tokens and budget_tokens_from_settings are exclusive; set exactly one "
       "budget"},
      {{},
       {},
       "node 'fetch' (fetch_node_texts): no budget configured (max_chars, budget_tokens or "
       "budget_tokens_from_settings) and graph attribute max_context_tokens (settings.max_context_tokens) is "
       "missing"},
      {{},
       {{"max_context_tokens", "0"}},
       "node 'fetch' (fetch_node_texts): graph attribute max_context_tokens must be > 0, got 0"},
      {{},
       {{"max_context_tokens", "-5"}},
       "node 'fetch' (fetch_node_texts): graph attribute max_context_tokens must be > 0, got -5"},
      {{},
       {{"max_context_tokens", "lots"}},
       "node 'fetch' (fetch_node_texts): graph attribute max_context_tokens must be an integer, got 'lots'"},
      {{},
       {{"max_context_tokens", "1"}},
       "node 'fetch' (fetch_node_texts): the implicit budget floor(0.70 * max_context_tokens = 1) is 0; it must be > "
       "0"},
      {{{"budget_tokens", "0"}}, {}, "node 'fetch' (fetch_node_texts): budget_tokens must be > 0, got 0"},
      {{{"max_chars", "-1"}}, {}, "node 'fetch' (fetch_node_texts): max_chars must be > 0, got -1"},
      {{{"budget_tokens_from_settings", "nope"}},
       {},
       "node 'fetch' (fetch_node_texts): budget_tokens_from_settings names graph attribute 'nope', which is not set"},
      {{{"budget_tokens_from_settings", "b"}},
       {{"b", "0"}},
       "node 'fetch' (fetch_node_texts): graph attribute b (from budget_tokens_from_settings) must be > 0, got 0"},
      {{{"budget_tokens", "900"}, {"prioritization_mode", "depth_first"}},
       {},
       "node 'fetch' (fetch_node_texts): prioritization_mode must be one of seed_first | graph_first | balanced, got "
       "'depth_first'"},
  };
  for (const Case& c : cases) {
    Graph g = fetch_graph(c.node, c.graph);
    Context ctx = scoped_context(json::array({"S1"}));
    EXPECT_EQ(error_of(g, ctx), c.message);
  }
}

TEST(FetchNodeTextsTest, ConfigurationErrorsComeBeforeTheEmptyCase) {
  Graph g = fetch_graph({{"max_chars", "10"}, {"budget_tokens", "10"}});
  Context c = scoped_context(json::array());
  EXPECT_NE(error_of(g, c).find("max_chars cannot be used together"), std::string::npos);
}

TEST(FetchNodeTextsTest, MissingRepositoryIsAnError) {
  Graph g = fetch_graph({{"max_chars", "10"}});
  Context c;
  c.set("branch", "main");
  c.set("retrieval_seed_nodes", json::array({"S1"}));
  EXPECT_NE(error_of(g, c).find("'repository' is required"), std::string::npos);
}

TEST(FetchNodeTextsTest, CharBudgetSkipsASnippetThatDoesNotFitAndKeepsScanning) {
  auto backend = std::make_shared<FakeTextBackend>();
  backend->texts = {{"S1", "12345"}, {"S2", "12345678901234567890"}, {"A", "123"}, {"B", "1"}, {"C", "12"}};
  Graph g = fetch_graph({{"max_chars", "10"}, {"prioritization_mode", "seed_first"}});
  Context c = scoped_context(json::array({"S1", "S2"}), json::array({"A", "B", "C"}));
  FetchRun r = run_fetch(g, c, backend);
  const json& texts = r.outcome.context_updates["node_texts"];
  EXPECT_EQ(ids_of(texts), (std::vector<std::string>{"S1", "A", "B"}));  // 5 + 3 + 1 = 9; C (2) would make 11
  const json& debug = r.outcome.context_updates["graph_debug"];
  EXPECT_EQ(debug["used_chars"], 9);
  EXPECT_EQ(debug["max_chars"], 10);
  EXPECT_TRUE(debug["budget_tokens"].is_null());
  EXPECT_EQ(debug["skipped_count"], 2);
  EXPECT_EQ(debug["node_texts_count"], 3);
}

TEST(FetchNodeTextsTest, CharsAreUnicodeCharactersNotBytes) {
  EXPECT_EQ(count_chars("h\xC3\xA9llo \xE2\x82\xAC"), 7u);  // "héllo €"
  auto backend = std::make_shared<FakeTextBackend>();
  backend->texts = {{"S1", "\xC3\xA9\xC3\xA9\xC3\xA9"}};  // 3 characters, 6 bytes
  Graph g = fetch_graph({{"max_chars", "3"}});
  Context c = scoped_context(json::array({"S1"}));
  FetchRun r = run_fetch(g, c, backend);
  EXPECT_EQ(r.outcome.context_updates["node_texts"].size(), 1u);
  EXPECT_EQ(r.outcome.context_updates["graph_debug"]["used_chars"], 3);
}

TEST(FetchNodeTextsTest, TokenBudgetSkipsASnippetThatDoesNotFitAndKeepsScanning) {
  auto counter = token_counter_for("o200k_base");
  auto backend = std::make_shared<FakeTextBackend>();
  backend->texts = {
      {"S1", "public int Add(int a, int b) => a + b;"},
      {"S2", "SELECT Id, Title, RoomId, StartsAt, EndsAt FROM dbo.Meetings WHERE Status = 0 ORDER BY StartsAt"},
      {"A", "hello world"},
      {"B", "x"}};
  std::size_t s1 = counter->count(backend->texts["S1"]);
  std::size_t s2 = counter->count(backend->texts["S2"]);
  std::size_t a = counter->count(backend->texts["A"]);
  std::size_t b = counter->count(backend->texts["B"]);
  EXPECT_EQ(s1, 14u);
  EXPECT_EQ(s2, 27u);
  EXPECT_EQ(a, 2u);
  EXPECT_EQ(b, 1u);
  Graph g = fetch_graph({{"budget_tokens", "16"}, {"prioritization_mode", "seed_first"}});
  Context c = scoped_context(json::array({"S1", "S2"}), json::array({"A", "B"}));
  FetchRun r = run_fetch(g, c, backend);
  EXPECT_EQ(ids_of(r.outcome.context_updates["node_texts"]), (std::vector<std::string>{"S1", "A"}));  // 14 + 2
  const json& debug = r.outcome.context_updates["graph_debug"];
  EXPECT_EQ(debug["budget_tokens"], 16);
  EXPECT_EQ(debug["used_tokens"], 16);
  EXPECT_TRUE(debug["max_chars"].is_null());
  EXPECT_EQ(debug["skipped_count"], 2);  // S2 (27) and B (would make 17)
}

TEST(FetchNodeTextsTest, ImplicitBudgetUsesSeventyPercentOfMaxContextTokens) {
  auto backend = std::make_shared<FakeTextBackend>();
  backend->texts = {{"S1", "hello world"}, {"S2", "x"}};     // 2 and 1 tokens
  Graph g = fetch_graph({}, {{"max_context_tokens", "4"}});  // floor(2.8) = 2
  Context c = scoped_context(json::array({"S1", "S2"}));
  FetchRun r = run_fetch(g, c, backend);
  EXPECT_EQ(ids_of(r.outcome.context_updates["node_texts"]), (std::vector<std::string>{"S1"}));
  EXPECT_EQ(r.outcome.context_updates["graph_debug"]["budget_tokens"], 2);
  EXPECT_EQ(r.outcome.context_updates["graph_debug"]["budget_source"], "implicit");
}

TEST(FetchNodeTextsTest, WritesItemsAndGraphDebugAndLeavesIdListsAlone) {
  auto backend = std::make_shared<FakeTextBackend>();
  backend->texts = {{"S1", "one"}, {"S2", "two"}, {"A", "three"}, {"C", "four"}};
  backend->hidden = {"S2"};
  Graph g = fetch_graph({{"max_chars", "1000"}, {"prioritization_mode", "graph_first"}, {"next", "render"}},
                        {{"active_index", "main_idx"}});
  Context c = scoped_context(json::array({"S1", "S2"}), json::array({"S1", "S2", "A", "C"}),
                             json::array({{{"from_id", "S1"}, {"to_id", "A"}, {"edge_type", "calls"}},
                                          {{"from_id", "A"}, {"to_id", "C"}, {"edge_type", "calls"}}}));
  c.set("retrieval_filters", json{{"acl_tags_any", json::array({"public"})}});
  c.set("graph_debug", json{{"expanded_count", 4}, {"reason", "ok"}, {"truncated", false}});
  FetchRun r = run_fetch(g, c, backend);

  ASSERT_EQ(r.backend->fetch_calls.size(), 1u);
  const auto& call = r.backend->fetch_calls[0];
  EXPECT_EQ(call.ids, (std::vector<std::string>{"S1", "A", "C", "S2"}));
  EXPECT_EQ(call.repository, "acme");
  EXPECT_EQ(call.branch, "main");
  EXPECT_EQ(call.filters,
            (json{{"acl_tags_any", json::array({"public"})}, {"repository", "acme"}, {"branch", "main"}}));
  EXPECT_EQ(call.active_index, "main_idx");
  ASSERT_EQ(r.backend->describe_calls.size(), 1u);
  EXPECT_EQ(r.backend->describe_calls[0], (std::vector<std::string>{"S1", "A", "C"}));

  json expected = json::array({{{"id", "S1"},
                                {"node_id", "S1"},
                                {"text", "one"},
                                {"is_seed", true},
                                {"depth", 0},
                                {"parent_id", nullptr},
                                {"path", "src/S1.cs"},
                                {"language", "csharp"}},
                               {{"id", "A"},
                                {"node_id", "A"},
                                {"text", "three"},
                                {"is_seed", false},
                                {"depth", 1},
                                {"parent_id", "S1"},
                                {"path", "src/A.cs"},
                                {"language", "csharp"}},
                               {{"id", "C"},
                                {"node_id", "C"},
                                {"text", "four"},
                                {"is_seed", false},
                                {"depth", 2},
                                {"parent_id", "A"},
                                {"path", "src/C.cs"},
                                {"language", "csharp"}}});
  EXPECT_EQ(r.outcome.context_updates["node_texts"], expected);
  json debug = r.outcome.context_updates["graph_debug"];
  EXPECT_EQ(debug, (json{{"expanded_count", 4},
                         {"truncated", false},
                         {"reason", "ok"},
                         {"prioritization_mode", "graph_first"},
                         {"seed_count", 2},
                         {"graph_expanded_count", 4},
                         {"candidate_count", 4},
                         {"node_texts_count", 3},
                         {"skipped_count", 0},
                         {"missing_count", 1},
                         {"budget_source", "max_chars"},
                         {"budget_tokens", nullptr},
                         {"used_tokens", 3},
                         {"max_chars", 1000},
                         {"used_chars", 12}}));
  for (const char* key : {"retrieval_seed_nodes", "graph_expanded_nodes", "graph_seed_nodes", "graph_edges"}) {
    EXPECT_FALSE(r.outcome.context_updates.contains(key)) << key;
  }
  EXPECT_EQ(r.outcome.suggested_next_ids, (std::vector<std::string>{"render"}));
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].name, "FETCH_NODE_TEXTS");
  EXPECT_EQ(r.events[0].fields["node_texts_count"], 3);
}

TEST(FetchNodeTextsTest, FallsBackToGraphSeedNodesWhenRetrievalSeedsAreEmpty) {
  auto backend = std::make_shared<FakeTextBackend>();
  backend->texts = {{"G1", "one"}};
  Graph g = fetch_graph({{"max_chars", "100"}});
  Context c = scoped_context(json::array());
  c.set("graph_seed_nodes", json::array({"G1"}));
  FetchRun r = run_fetch(g, c, backend);
  EXPECT_EQ(ids_of(r.outcome.context_updates["node_texts"]), (std::vector<std::string>{"G1"}));
  EXPECT_EQ(r.outcome.context_updates["node_texts"][0]["is_seed"], true);
}

TEST(FetchNodeTextsTest, NoIdsGiveEmptyOutputAndTheReasonWithoutCallingTheBackend) {
  auto backend = std::make_shared<FakeTextBackend>();
  Graph g = fetch_graph({{"budget_tokens", "900"}});
  Context c = scoped_context(json::array());
  FetchRun r = run_fetch(g, c, backend);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(r.outcome.context_updates["node_texts"], json::array());
  const json& debug = r.outcome.context_updates["graph_debug"];
  EXPECT_EQ(debug["reason"], "no_nodes_for_fetch_node_texts");
  EXPECT_EQ(debug["node_texts_count"], 0);
  EXPECT_EQ(debug["seed_count"], 0);
  EXPECT_EQ(debug["graph_expanded_count"], 0);
  EXPECT_EQ(debug["budget_tokens"], 900);
  EXPECT_TRUE(backend->fetch_calls.empty());
}

class TempIndex {
 public:
  TempIndex() {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() / ("attractor-fetch-" + std::to_string(rd()) + std::to_string(rd()));
    retrieval::IndexOptions o;
    o.src_dir = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";
    o.index_dir = dir_.string();
    o.repository = "acme";
    o.branch = "main";
    o.acl_file = o.src_dir + "/acl.json";
    retrieval::index_repository(o);
  }
  ~TempIndex() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
};

TEST(FetchNodeTextsTest, LocalBackendOverTheTestRepositoryHonoursTheAclFilters) {
  TempIndex index;
  auto backend = std::shared_ptr<retrieval::IRetrievalBackend>(retrieval::make_retrieval_backend("local", index.dir()));
  Graph g = fetch_graph({{"budget_tokens", "2000"}, {"prioritization_mode", "seed_first"}});
  Context c = scoped_context(
      json::array({"sql:dbo.CancelMeeting", "sql:payroll.Salaries"}),
      json::array({"sql:dbo.CancelMeeting", "sql:dbo.Meetings", "sql:dbo.WriteAudit"}),
      json::array({{{"from_id", "sql:dbo.CancelMeeting"}, {"to_id", "sql:dbo.Meetings"}, {"edge_type", "writes"}},
                   {{"from_id", "sql:dbo.CancelMeeting"}, {"to_id", "sql:dbo.WriteAudit"}, {"edge_type", "calls"}}}));
  c.set("retrieval_filters", json{{"acl_tags_any", json::array({"public"})}});
  testing::StageFixture f;
  FetchNodeTextsHandler h(std::make_shared<FixedRetrievalProvider>(backend));
  Outcome o = h.execute(*g.node("fetch"), c, g, f.env("fetch"));
  const json& texts = o.context_updates["node_texts"];
  EXPECT_EQ(ids_of(texts),
            (std::vector<std::string>{"sql:dbo.CancelMeeting", "sql:dbo.Meetings", "sql:dbo.WriteAudit"}));
  EXPECT_EQ(texts[0]["path"], "db/procedures/CancelMeeting.sql");
  EXPECT_EQ(texts[0]["language"], "sql");
  EXPECT_NE(texts[0]["text"].get<std::string>().find("CREATE OR ALTER PROCEDURE dbo.CancelMeeting"), std::string::npos);
  EXPECT_EQ(texts[1]["parent_id"], "sql:dbo.CancelMeeting");
  EXPECT_EQ(texts[1]["depth"], 1);
  EXPECT_EQ(o.context_updates["graph_debug"]["missing_count"], 1);  // payroll.Salaries is hr-only
}

}  // namespace
}  // namespace attractor
