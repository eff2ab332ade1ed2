// Indexes tests/data/ssdt_repo (an SSDT project, migration scripts and an EF Core + Dapper data
// layer) and checks the nodes and edges listed in its expected.json.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "retrieval/local/index_store.h"
#include "retrieval/local/local_indexer.h"
#include "retrieval/local/local_backend.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

const std::string kRepo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/ssdt_repo";

using Edge = std::tuple<std::string, std::string, std::string>;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class SsdtFixtureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    IndexOptions o;
    o.src_dir = kRepo;
    o.index_dir = dir_->str();
    o.repository = "shop";
    o.branch = "main";
    summary_ = new IndexSummary(run_local_indexer(o));
    expected_ = new json(json::parse(slurp(kRepo + "/expected.json")));
    IndexStore store(dir_->str(), false);
    nodes_ = new std::set<std::string>();
    auto n = store.db().prepare("SELECT id FROM nodes WHERE repository = 'shop' AND branch = 'main'");
    while (n.step()) nodes_->insert(n.text(0));
    edges_ = new std::set<Edge>();
    auto e = store.db().prepare(
        "SELECT from_id, to_id, edge_type FROM edges WHERE repository = 'shop' AND branch = 'main'");
    while (e.step()) edges_->insert({e.text(0), e.text(1), e.text(2)});
  }
  static void TearDownTestSuite() {
    delete edges_;
    delete nodes_;
    delete expected_;
    delete summary_;
    delete dir_;
  }

  /// Every edge leaving `from`, one per line, for failure messages.
  static std::string edges_from(const std::string& from) {
    std::string out;
    for (const auto& [f, t, type] : *edges_) {
      if (f == from) out += "\n  " + type + " -> " + t;
    }
    return out.empty() ? "\n  (no edges)" : out;
  }

  static bool any_edge(const std::string& from, const std::string& to) {
    for (const auto& [f, t, type] : *edges_) {
      if (f == from && t == to) return true;
    }
    return false;
  }

  static TempDir* dir_;
  static IndexSummary* summary_;
  static json* expected_;
  static std::set<std::string>* nodes_;
  static std::set<Edge>* edges_;
};

TempDir* SsdtFixtureTest::dir_ = nullptr;
IndexSummary* SsdtFixtureTest::summary_ = nullptr;
json* SsdtFixtureTest::expected_ = nullptr;
std::set<std::string>* SsdtFixtureTest::nodes_ = nullptr;
std::set<Edge>* SsdtFixtureTest::edges_ = nullptr;

TEST_F(SsdtFixtureTest, IndexesEverySqlAndCSharpFileWithoutIssues) {
  EXPECT_EQ(summary_->files_indexed, 27 + 10);  // .sqlproj, .csproj and the .json/.md files are not read
  for (const auto& issue : summary_->issues) ADD_FAILURE() << issue.path << ":" << issue.line << ": " << issue.message;
  // Temporary tables, table variables, CTEs and index names add no node of any kind.
  EXPECT_EQ(summary_->nodes_by_kind.at("schema"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("table"),
            9 + 1 + 2);  // SSDT, the CreateStructure duplicate, ALTER TABLE partials
  EXPECT_EQ(summary_->nodes_by_kind.at("view"), 2 + 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("procedure"), 8 + 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("function"), 2);
  EXPECT_EQ(summary_->nodes_by_kind.at("trigger"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("type"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("sequence"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("synonym"), 1);
}

TEST_F(SsdtFixtureTest, ExpectedNodesExistAndAbsentOnesDoNot) {
  for (const auto& id : expected_->at("nodes")) EXPECT_TRUE(nodes_->count(id.get<std::string>())) << id;
  for (const auto& id : expected_->at("absent")) EXPECT_FALSE(nodes_->count(id.get<std::string>())) << id;
}

TEST_F(SsdtFixtureTest, ExpectedEdgesExist) {
  for (const auto& e : expected_->at("edges")) {
    std::string from = e.at("from_id"), to = e.at("to_id"), type = e.at("edge_type");
    EXPECT_TRUE(edges_->count({from, to, type})) << e.dump() << "\nedges from " << from << ":" << edges_from(from);
  }
}

TEST_F(SsdtFixtureTest, AbsentEdgesAreNotDrawn) {
  for (const auto& e : expected_->at("absent_edges")) {
    EXPECT_FALSE(any_edge(e.at("from_id"), e.at("to_id"))) << e.dump();
  }
}

// Edges a reader expects but the indexer does not draw yet. When one appears, move it from
// "missing" to "edges" in expected.json.
TEST_F(SsdtFixtureTest, MissingEdgesAreStillMissing) {
  for (const auto& e : expected_->at("missing")) {
    ASSERT_TRUE(e.contains("reason")) << e.dump();
    std::string from = e.at("from_id"), to = e.at("to_id"), type = e.at("edge_type");
    EXPECT_TRUE(nodes_->count(from)) << from;
    EXPECT_TRUE(nodes_->count(to)) << to;
    EXPECT_FALSE(edges_->count({from, to, type}))
        << e.dump() << " is drawn now: move it from \"missing\" to \"edges\" in tests/data/ssdt_repo/expected.json";
  }
}

TEST_F(SsdtFixtureTest, ByteOrderMarkIsNotPartOfTheNode) {
  std::string file = slurp(kRepo + "/Database/Sales/Tables/Orders.sql");
  ASSERT_EQ(file.substr(0, 3), "\xEF\xBB\xBF");
  LocalBackend backend(dir_->str());
  auto texts = backend.fetch_texts({"sql:Sales.Orders"}, "shop", "main", json::object(), std::nullopt);
  ASSERT_TRUE(texts.count("sql:Sales.Orders"));
  EXPECT_EQ(texts.at("sql:Sales.Orders").substr(0, 29), "CREATE TABLE [Sales].[Orders]");
  auto info = backend.describe({"sql:Sales.Orders", "sql:Sales.trg_Orders_History"}, "shop", "main", json::object(),
                               std::nullopt);
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info[0].start_line, 1);
  EXPECT_EQ(info[0].end_line, 10);
  EXPECT_EQ(info[1].path, "Database/Sales/Tables/Orders.sql");
  EXPECT_EQ(info[1].kind, "trigger");
}

/// Recall@10 of the fixture's labelled questions (queries.json) for one search type and style.
double recall_at_10(const std::string& index_dir, SearchType type, const std::string& style) {
  json queries = json::parse(slurp(kRepo + "/queries.json"));
  LocalBackend backend(index_dir);
  double sum = 0;
  int count = 0;
  for (const auto& q : queries) {
    if (q["style"] != style) continue;
    SearchRequest r;
    r.search_type = type;
    r.query = q["query"];
    r.top_k = 10;
    r.repository = "shop";
    r.branch = "main";
    std::set<std::string> top;
    for (const auto& h : backend.search(r).hits) top.insert(h.id);
    int found = 0;
    for (const auto& id : q["relevant"]) found += top.count(id.get<std::string>()) ? 1 : 0;
    sum += static_cast<double>(found) / static_cast<double>(q["relevant"].size());
    ++count;
  }
  return count ? sum / count : 0;
}

TEST_F(SsdtFixtureTest, LabelledQuestionsFindTheirObjects) {
  // Named questions must all be found by bm25 and hybrid; plain-English ones (no symbol name in
  // them) by hybrid at least 4 times out of 5 with the offline lexical embedder.
  EXPECT_DOUBLE_EQ(recall_at_10(dir_->str(), SearchType::kBm25, "named"), 1.0);
  EXPECT_DOUBLE_EQ(recall_at_10(dir_->str(), SearchType::kHybrid, "named"), 1.0);
  EXPECT_GE(recall_at_10(dir_->str(), SearchType::kHybrid, "plain"), 0.8);
}

}  // namespace
}  // namespace attractor::retrieval
