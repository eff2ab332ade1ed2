// One object, one answer: an object defined by its SSDT file, a CreateStructure script and a
// migration is one search hit, carries the other locations, and its edges come from all of them.
#include "retrieval/local/canonical_sql.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "retrieval/local/local_indexer.h"
#include "retrieval/local/local_backend.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

/// Indexes `src` into `index` as repository "shop", branch "main".
void index_shop(const TempDir& src, const TempDir& index) {
  IndexOptions o;
  o.src_dir = src.str();
  o.index_dir = index.str();
  o.repository = "shop";
  o.branch = "main";
  run_local_indexer(o);
}

StoredNode sql_node(std::string id, std::string path, std::string name, bool partial = false) {
  StoredNode n;
  n.id = std::move(id);
  n.path = std::move(path);
  n.language = "sql";
  n.kind = "table";
  n.name = std::move(name);
  if (partial) n.facts["partial"] = true;
  return n;
}

TEST(CanonicalSqlTest, TheDeclarativeFileWinsOverScriptsMigrationsAndPartials) {
  std::vector<StoredNode> nodes = {
      sql_node("sql:Sales.Orders", "Migrations/001.sql", "Sales.Orders"),
      sql_node("sql:Sales.Orders@CreateStructure.sql", "CreateStructure.sql", "Sales.Orders"),
      sql_node("sql:Sales.Customers", "CreateStructure.sql", "Sales.Customers"),
      sql_node("sql:Sales.Orders@Database/Sales/Tables/Orders.sql", "Database/Sales/Tables/Orders.sql", "sales.orders"),
      sql_node("sql:Sales.Orders@z.sql", "z.sql", "Sales.Orders", true),
  };
  CanonicalSql c = choose_canonical_sql(nodes);
  EXPECT_EQ(c.by_name.at("sales.orders"), "sql:Sales.Orders@Database/Sales/Tables/Orders.sql");
  EXPECT_EQ(c.by_name.at("sales.customers"), "sql:Sales.Customers");
  EXPECT_EQ(c.duplicate_of.size(), 3u);
  EXPECT_EQ(c.duplicate_of.at("sql:Sales.Orders"), "sql:Sales.Orders@Database/Sales/Tables/Orders.sql");
  EXPECT_EQ(c.other_paths.at("sql:Sales.Orders@Database/Sales/Tables/Orders.sql"),
            (std::vector<std::string>{"CreateStructure.sql", "Migrations/001.sql", "z.sql"}));
}

TEST(CanonicalSqlTest, SearchAndExpansionReturnTheObjectOnce) {
  TempDir src, index;
  write(src.path() / "Database/Sales/Tables/Orders.sql",
        "CREATE TABLE [Sales].[Orders] ([Id] INT NOT NULL, [CustomerId] INT NOT NULL)\nGO\n");
  write(src.path() / "Database/Sales/Tables/Customers.sql",
        "CREATE TABLE [Sales].[Customers] ([Id] INT NOT NULL)\nGO\n");
  write(src.path() / "Migrations/CreateStructure.sql",
        "CREATE TABLE Sales.Orders (Id INT NOT NULL, CustomerId INT NOT NULL)\nGO\n"
        "CREATE TABLE Sales.Customers (Id INT NOT NULL)\nGO\n");
  write(src.path() / "Migrations/002_fk.sql",
        "ALTER TABLE Sales.Orders ADD CONSTRAINT FK_Orders_Customers FOREIGN KEY (CustomerId) "
        "REFERENCES Sales.Customers (Id);\n");
  index_shop(src, index);

  LocalBackend backend(index.str());
  SearchRequest r;
  r.query = "Orders";
  r.top_k = 10;
  r.repository = "shop";
  r.branch = "main";
  for (SearchType type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
    r.search_type = type;
    std::vector<std::string> ids;
    for (const auto& h : backend.search(r).hits) ids.push_back(h.id);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), "sql:Sales.Orders"), 1);
    for (const auto& id : ids) EXPECT_EQ(id.find('@'), std::string::npos) << id;
  }

  ExpandRequest e;
  e.repository = "shop";
  e.branch = "main";
  e.seed_ids = {"sql:Sales.Orders"};
  e.max_depth = 1;
  e.edge_allowlist = {"references", "reads", "writes"};
  auto expanded = backend.expand(e);
  std::vector<std::string> reached;
  for (const auto& edge : expanded.edges) reached.push_back(edge.from_id + " " + edge.edge_type + " " + edge.to_id);
  EXPECT_EQ(reached, (std::vector<std::string>{"sql:Sales.Orders references sql:Sales.Customers"}));

  IndexStore store(index.str(), false);
  auto s = store.db().prepare(
      "SELECT json_extract(metadata, '$.also_defined_in') FROM nodes WHERE id = 'sql:Sales.Orders'");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.text(0), R"(["Migrations/CreateStructure.sql","Migrations/002_fk.sql"])");
}

TEST(CanonicalSqlTest, AnIndexWrittenBeforeDuplicatesExistedStillSearches) {
  TempDir src, index;
  write(src.path() / "T.sql", "CREATE TABLE dbo.Orders (Id INT)\n");
  index_shop(src, index);
  IndexStore(index.str(), true).db().exec("DROP TABLE duplicates");
  LocalBackend backend(index.str());
  SearchRequest r;
  r.query = "Orders";
  r.search_type = SearchType::kHybrid;
  r.repository = "shop";
  r.branch = "main";
  auto hits = backend.search(r).hits;
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, "sql:dbo.Orders");
}

}  // namespace
}  // namespace attractor::retrieval
