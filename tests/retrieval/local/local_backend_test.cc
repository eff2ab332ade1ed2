#include "retrieval/local/local_backend.h"

#include <gtest/gtest.h>

#include "retrieval/local/index_store.h"
#include "retrieval/local/lexical_embedder.h"
#include "retrieval/local/vector_sync.h"
#include "support/temp_dir.h"

#include <set>

namespace attractor::retrieval {
namespace {

using nlohmann::json;
using testing::TempDir;

StoredNode node(const std::string& id, const std::string& language, const std::string& kind, const std::string& text,
                json acl, json labels, json metadata) {
  StoredNode n;
  n.id = id;
  n.path = language == "sql" ? "db/schema.sql" : "src/Code.cs";
  n.language = language;
  n.kind = kind;
  n.name = id.substr(id.find(':') + 1);
  n.start_line = 1;
  n.end_line = 3;
  n.text = text;
  n.acl_tags = std::move(acl);
  n.labels = std::move(labels);
  n.metadata = std::move(metadata);
  return n;
}

const char* kGet = "cs:Acme.MeetingService.GetMeetingById(int)";
const char* kFind = "cs:Acme.MeetingRepository.Find(int)";
const char* kTable = "sql:dbo.Meetings";
const char* kSalary = "cs:Acme.PayrollService.GetSalary(int)";
const char* kLegacy = "cs:Acme.Util.get_meeting_by_id_legacy()";
const char* kTwinA = "cs:Acme.Twins.A()";
const char* kTwinB = "cs:Acme.Twins.B()";

class LocalBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    IndexStore store(dir_.str(), true);
    store.begin();
    Scope s1{"default", "acme", "main", "s1"};
    json pub = json::array({"public"});
    json code_t1 = {{"data_type", "code"}, {"tenant", "t1"}};
    store.insert_node(
        s1, node(kGet, "csharp", "method", "public Meeting GetMeetingById(int id) { return _repo.Find(id); }", pub,
                 json::array({"internal"}), code_t1));
    store.insert_node(s1, node(kFind, "csharp", "method",
                               "public Meeting Find(int id) { return _db.Query(\"SELECT * FROM dbo.Meetings\"); }", pub,
                               json::array({"internal"}), code_t1));
    store.insert_node(
        s1, node(kTable, "sql", "table", "CREATE TABLE dbo.Meetings (Id INT, Title NVARCHAR(200))",
                 json::array({"dba"}), json::array({"internal", "pii"}), {{"data_type", "sql"}, {"tenant", "t1"}}));
    store.insert_node(s1, node(kSalary, "csharp", "method",
                               "public decimal GetSalary(int id) { /* not a meeting */ return _payroll.Find(id); }",
                               json::array({"hr"}), json::array({"internal", "confidential"}),
                               {{"data_type", "code"}, {"tenant", "t2"}}));
    store.insert_node(s1, node(kLegacy, "csharp", "method", "void get_meeting_by_id_legacy() { }", pub,
                               json::array({"internal"}), code_t1));
    store.insert_node(s1, node(kTwinB, "csharp", "method", "void Twin() { zebra(); }", pub, json::array(), code_t1));
    store.insert_node(s1, node(kTwinA, "csharp", "method", "void Twin() { zebra(); }", pub, json::array(), code_t1));
    store.sync_edges(
        s1, {{kGet, kFind, "calls"}, {kFind, kTable, "reads"}, {kSalary, kFind, "calls"}, {kGet, kTable, "uses_type"}});
    store.touch_scope(s1);
    Scope s2{"default", "acme", "main", "s2"};
    store.insert_node(s2, node(kGet, "csharp", "method", "public Meeting GetMeetingById(int id) { return Cache(id); }",
                               pub, json::array({"internal"}), code_t1));
    store.touch_scope(s2);
    LexicalEmbedder embedder(256);
    sync_vectors(store, "default", embedder, "flat", {}, {});
    store.commit();
  }

  SearchRequest request(SearchType type, const std::string& query, json filters = json::object(), int top_k = 10) {
    SearchRequest r;
    r.search_type = type;
    r.query = query;
    r.top_k = top_k;
    r.repository = "acme";
    r.branch = "main";
    filters["snapshot_id"] = "s1";
    r.retrieval_filters = filters;
    return r;
  }

  static std::vector<std::string> ids(const SearchResponse& r) {
    std::vector<std::string> out;
    for (const auto& h : r.hits) out.push_back(h.id);
    return out;
  }

  TempDir dir_;
};

TEST_F(LocalBackendTest, Bm25MatchesWholeSplitAndSnakeCaseIdentifiers) {
  // "meeting" also matches "Meetings": the FTS5 table stems with porter.
  LocalBackend backend(dir_.str());
  auto whole = backend.search(request(SearchType::kBm25, "GetMeetingById"));
  ASSERT_FALSE(whole.hits.empty());
  EXPECT_EQ(whole.hits[0].id, kGet);
  EXPECT_EQ(whole.hits[0].rank, 1);

  auto part = ids(backend.search(request(SearchType::kBm25, "meeting")));
  EXPECT_EQ(std::set<std::string>(part.begin(), part.end()),
            (std::set<std::string>{kGet, kFind, kTable, kSalary, kLegacy}));

  auto snake = ids(backend.search(request(SearchType::kBm25, "get_meeting_by_id")));
  ASSERT_GE(snake.size(), 2u);
  EXPECT_EQ(std::set<std::string>(snake.begin(), snake.begin() + 2), (std::set<std::string>{kGet, kLegacy}));
}

TEST_F(LocalBackendTest, MatchOperatorAndRequiresEveryTerm) {
  LocalBackend backend(dir_.str());
  auto r = request(SearchType::kBm25, "salary meeting");
  r.match_operator = MatchOperator::kAnd;
  EXPECT_EQ(ids(backend.search(r)), std::vector<std::string>{kSalary});
  r.match_operator = MatchOperator::kOr;
  EXPECT_EQ(backend.search(r).hits.size(), 5u);
}

TEST_F(LocalBackendTest, TiesAreBrokenById) {
  LocalBackend backend(dir_.str());
  // The twins have the same text and equally long names: equal bm25 scores, id decides.
  auto r = backend.search(request(SearchType::kBm25, "zebra", json::object(), 2));
  ASSERT_EQ(r.hits.size(), 2u);
  EXPECT_EQ(r.hits[0].id, kTwinA);
  EXPECT_EQ(r.hits[1].id, kTwinB);
  EXPECT_EQ(r.hits[0].score, r.hits[1].score);
  auto one = backend.search(request(SearchType::kBm25, "zebra", json::object(), 1));
  ASSERT_EQ(one.hits.size(), 1u);
  EXPECT_EQ(one.hits[0].id, kTwinA);
}

TEST_F(LocalBackendTest, SearchIsDeterministic) {
  LocalBackend a(dir_.str());
  LocalBackend b(dir_.str());
  for (auto type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
    auto first = a.search(request(type, "meeting find by id"));
    EXPECT_EQ(first.hits, a.search(request(type, "meeting find by id")).hits);
    EXPECT_EQ(first.hits, b.search(request(type, "meeting find by id")).hits);
  }
}

TEST_F(LocalBackendTest, HybridFusesBothListsWithRrf) {
  LocalBackend backend(dir_.str());
  auto sem = backend.search(request(SearchType::kSemantic, "GetMeetingById", json::object(), 3)).hits;
  auto bm = backend.search(request(SearchType::kBm25, "GetMeetingById", json::object(), 3)).hits;
  auto r = request(SearchType::kHybrid, "GetMeetingById", json::object(), 3);
  r.rrf_k = 10;
  auto hybrid = backend.search(r);
  ASSERT_EQ(hybrid.hits.size(), 3u);
  EXPECT_EQ(hybrid.hits[0].id, kGet);
  double expected = 0;
  for (const auto& h : sem)
    if (h.id == kGet) expected += 1.0 / (10 + h.rank);
  for (const auto& h : bm)
    if (h.id == kGet) expected += 1.0 / (10 + h.rank);
  EXPECT_DOUBLE_EQ(hybrid.hits[0].score, expected);
  EXPECT_EQ(hybrid.debug["rrf_k"], 10);
}

TEST_F(LocalBackendTest, AclTagsAnyHidesNodesEverywhere) {
  LocalBackend backend(dir_.str());
  json f = {{"acl_tags_any", {"public"}}};
  for (auto type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
    for (const auto& id : ids(backend.search(request(type, "meeting salary Meetings table", f)))) {
      EXPECT_NE(id, kTable) << to_string(type);
      EXPECT_NE(id, kSalary) << to_string(type);
    }
  }
  json fs = f;
  fs["snapshot_id"] = "s1";
  auto texts = backend.fetch_texts({kGet, kTable, kSalary}, "acme", "main", fs, std::nullopt);
  EXPECT_EQ(texts.size(), 1u);
  EXPECT_TRUE(texts.count(kGet));

  ExpandRequest e;
  e.seed_ids = {kGet, kSalary};
  e.edge_allowlist = {"calls", "reads", "uses_type"};
  e.max_depth = 3;
  e.repository = "acme";
  e.branch = "main";
  e.retrieval_filters = fs;
  auto x = backend.expand(e);
  EXPECT_EQ(x.seed_ids, std::vector<std::string>{kGet});
  ASSERT_EQ(x.nodes.size(), 2u);
  EXPECT_EQ(x.nodes[1].id, kFind);
  EXPECT_EQ(x.edges, (std::vector<GraphEdge>{{kGet, kFind, "calls"}}));

  EXPECT_TRUE(ids(backend.search(request(SearchType::kBm25, "meeting", {{"acl_tags_any", json::array()}}))).empty());
}

TEST_F(LocalBackendTest, ClassificationLabelsAllRequiresEveryLabel) {
  LocalBackend backend(dir_.str());
  json f = {{"classification_labels_all", {"internal", "pii"}}};
  EXPECT_EQ(ids(backend.search(request(SearchType::kBm25, "meeting", f))), std::vector<std::string>{kTable});
  EXPECT_EQ(ids(backend.search(request(SearchType::kSemantic, "meeting", f))), std::vector<std::string>{kTable});
  json fs = f;
  fs["snapshot_id"] = "s1";
  EXPECT_EQ(backend.fetch_texts({kGet, kTable}, "acme", "main", fs, std::nullopt).size(), 1u);
  ExpandRequest e{{kFind}, {"reads", "~calls"}, 2, 10, "acme", "main", fs, std::nullopt};
  EXPECT_EQ(backend.expand(e).reason, "no_seeds");
}

TEST_F(LocalBackendTest, EqualityFiltersOnMetadataAndColumns) {
  LocalBackend backend(dir_.str());
  EXPECT_EQ(ids(backend.search(request(SearchType::kBm25, "meeting", {{"tenant", "t2"}}))),
            std::vector<std::string>{kSalary});
  EXPECT_EQ(ids(backend.search(request(SearchType::kBm25, "meeting", {{"data_type", "sql"}}))),
            std::vector<std::string>{kTable});
  EXPECT_EQ(ids(backend.search(request(SearchType::kHybrid, "meeting", {{"language", "sql"}}))),
            std::vector<std::string>{kTable});
  EXPECT_EQ(ids(backend.search(request(SearchType::kBm25, "meeting", {{"kind", {"table", "view"}}}))),
            std::vector<std::string>{kTable});
  EXPECT_TRUE(ids(backend.search(request(SearchType::kBm25, "meeting", {{"repository", "other"}}))).empty());

  json tenant = {{"tenant", "t1"}, {"snapshot_id", "s1"}};
  auto texts = backend.fetch_texts({kGet, kSalary}, "acme", "main", tenant, std::nullopt);
  EXPECT_EQ(texts.size(), 1u);
  EXPECT_TRUE(texts.count(kGet));
  ExpandRequest e{{kFind}, {"~calls"}, 1, 10, "acme", "main", tenant, std::nullopt};
  auto x = backend.expand(e);
  EXPECT_EQ(x.nodes, (std::vector<ExpandedNode>{{kFind, 0, std::nullopt}, {kGet, 1, kFind}}));
  EXPECT_EQ(backend.describe({kSalary, kGet}, "acme", "main", tenant, std::nullopt).size(), 1u);
}

TEST_F(LocalBackendTest, InvalidFiltersFailFast) {
  LocalBackend backend(dir_.str());
  for (json bad : {json{{"tenant", nullptr}}, json{{"tenant", {{"a", 1}}}}, json::array({1})}) {
    auto r = request(SearchType::kBm25, "meeting");
    r.retrieval_filters = bad;
    try {
      backend.search(r);
      FAIL() << bad.dump();
    } catch (const RetrievalError& e) {
      EXPECT_EQ(e.kind(), RetrievalError::Kind::kInvalidArgument) << bad.dump();
    }
  }
}

TEST_F(LocalBackendTest, SnapshotDefaultsToLatestAndCanBeSelected) {
  LocalBackend backend(dir_.str());
  EXPECT_EQ(backend.fetch_texts({kGet}, "acme", "main", json::object(), std::nullopt).at(kGet),
            "public Meeting GetMeetingById(int id) { return Cache(id); }");
  EXPECT_EQ(backend.fetch_texts({kGet}, "acme", "main", {{"snapshot_id", "s1"}}, std::nullopt).at(kGet),
            "public Meeting GetMeetingById(int id) { return _repo.Find(id); }");
  try {
    backend.fetch_texts({kGet}, "acme", "dev", json::object(), std::nullopt);
    FAIL();
  } catch (const RetrievalError& e) {
    EXPECT_EQ(e.kind(), RetrievalError::Kind::kNotFound);
  }
}

TEST_F(LocalBackendTest, ExpandIsBreadthFirstWithLimits) {
  LocalBackend backend(dir_.str());
  ExpandRequest e{{kGet}, {"calls", "reads", "uses_type"}, 2,           10, "acme",
                  "main", {{"snapshot_id", "s1"}},         std::nullopt};
  auto x = backend.expand(e);
  EXPECT_EQ(x.reason, "ok");
  EXPECT_FALSE(x.truncated);
  EXPECT_EQ(x.nodes, (std::vector<ExpandedNode>{{kGet, 0, std::nullopt}, {kFind, 1, kGet}, {kTable, 1, kGet}}));
  EXPECT_EQ(x.edges,
            (std::vector<GraphEdge>{{kGet, kFind, "calls"}, {kGet, kTable, "uses_type"}, {kFind, kTable, "reads"}}));

  e.max_nodes = 2;
  x = backend.expand(e);
  EXPECT_TRUE(x.truncated);
  EXPECT_EQ(x.reason, "limit_reached");
  EXPECT_EQ(x.nodes.size(), 2u);

  e = ExpandRequest{{kFind}, {"~calls"}, 1, 10, "acme", "main", {{"snapshot_id", "s1"}}, std::nullopt};
  x = backend.expand(e);
  EXPECT_EQ(x.nodes, (std::vector<ExpandedNode>{{kFind, 0, std::nullopt}, {kGet, 1, kFind}, {kSalary, 1, kFind}}));
  EXPECT_EQ(x.edges, (std::vector<GraphEdge>{{kGet, kFind, "calls"}, {kSalary, kFind, "calls"}}));

  e.max_depth = 0;
  EXPECT_EQ(backend.expand(e).nodes.size(), 1u);
  e.seed_ids = {"cs:Nope"};
  EXPECT_EQ(backend.expand(e).reason, "no_seeds");
}

TEST_F(LocalBackendTest, QueryEmbedderMustMatchTheIndex) {
  LocalBackend backend(dir_.str(), std::make_unique<LexicalEmbedder>(128));
  try {
    backend.search(request(SearchType::kSemantic, "meeting"));
    FAIL();
  } catch (const RetrievalError& e) {
    EXPECT_EQ(e.kind(), RetrievalError::Kind::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("lexical/lexical-v1"), std::string::npos);
  }
  EXPECT_FALSE(backend.search(request(SearchType::kBm25, "meeting")).hits.empty());
}

TEST_F(LocalBackendTest, RequestValidation) {
  LocalBackend backend(dir_.str());
  auto r = request(SearchType::kBm25, "   ");
  EXPECT_THROW(backend.search(r), RetrievalError);
  r = request(SearchType::kBm25, "meeting", json::object(), 0);
  EXPECT_THROW(backend.search(r), RetrievalError);
  r = request(SearchType::kBm25, "meeting");
  r.repository = "";
  EXPECT_THROW(backend.search(r), RetrievalError);
  r = request(SearchType::kHybrid, "meeting");
  r.rrf_k = 0;
  EXPECT_THROW(backend.search(r), RetrievalError);
  EXPECT_THROW(make_local_backend("weaviate", dir_.str()), RetrievalError);
  EXPECT_THROW(make_local_backend("local", dir_.str() + "/missing"), RetrievalError);
}

}  // namespace
}  // namespace attractor::retrieval
