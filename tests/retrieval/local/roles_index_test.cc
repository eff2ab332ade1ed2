// Node roles and --include/--exclude on tests/data/roles_repo (docs/retrieval.md section 8.3).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "retrieval/local/index_store.h"
#include "retrieval/local/local_backend.h"
#include "retrieval/local/local_indexer.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

using nlohmann::json;
using testing::TempDir;

const std::string kRolesRepo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/roles_repo";

IndexOptions roles_options(const std::string& index) {
  IndexOptions o;
  o.src_dir = kRolesRepo;
  o.index_dir = index;
  o.repository = "shop";
  o.branch = "main";
  return o;
}

/// path -> role of every node of the index (one role per file).
std::map<std::string, std::string> roles_by_path(const std::string& index_dir) {
  IndexStore store(index_dir, false);
  auto s = store.db().prepare("SELECT path, json_extract(metadata, '$.role'), COUNT(*) FROM nodes GROUP BY 1, 2");
  std::map<std::string, std::string> out;
  while (s.step()) out[s.text(0)] += s.text(1);
  return out;
}

std::vector<std::string> hit_ids(const std::string& index_dir, SearchType type, const std::string& query,
                                 json filters = json::object(), int top_k = 5) {
  LocalBackend backend(index_dir);
  SearchRequest r;
  r.search_type = type;
  r.query = query;
  r.top_k = top_k;
  r.repository = "shop";
  r.branch = "main";
  r.retrieval_filters = std::move(filters);
  std::vector<std::string> ids;
  for (const auto& h : backend.search(r).hits) ids.push_back(h.id);
  return ids;
}

TEST(RolesIndexTest, EveryFileGetsTheRoleOfItsPathOrContent) {
  TempDir index;
  run_local_indexer(roles_options(index.str()));
  EXPECT_EQ(roles_by_path(index.str()), (std::map<std::string, std::string>{
                                            {"src/Legacy/OldInvoice.cs", "source"},
                                            {"src/Shop.UnitTests/FakeClock.cs", "test"},
                                            {"src/Shop/Banner.cs", "generated"},
                                            {"src/Shop/InvoiceService.cs", "source"},
                                            {"src/Shop/InvoiceService.g.cs", "generated"},
                                            {"src/Shop/Migrations/AddInvoices.cs", "migration"},
                                            {"src/Shop/OrderTest.cs", "test"},
                                            {"src/Shop/Strings.Designer.cs", "generated"},
                                            {"src/Sql/dbo/Tables/Invoice.sql", "source"},
                                            {"test/Fixtures.cs", "test"},
                                            {"tests/Shop.Tests/InvoiceServiceTests.cs", "test"},
                                            {"util/Migrator/DbScripts/2024-01-01_00_Invoice.sql", "migration"},
                                        }));
}

TEST(RolesIndexTest, AnAclRuleOverridesTheRole) {
  TempDir index, acl_dir;
  const std::string acl = acl_dir.str() + "/acl.json";
  std::ofstream(acl) << R"({"rules": [{"pattern": "test/**", "metadata": {"role": "source"}}]})";
  IndexOptions o = roles_options(index.str());
  o.acl_file = acl;
  run_local_indexer(o);
  auto roles = roles_by_path(index.str());
  EXPECT_EQ(roles.at("test/Fixtures.cs"), "source");
  EXPECT_EQ(roles.at("tests/Shop.Tests/InvoiceServiceTests.cs"), "test");
}

TEST(RolesIndexTest, IncludeAndExcludeAreRepeatableAndGitignoreStillApplies) {
  TempDir index;
  IndexOptions o = roles_options(index.str());
  o.include_globs = {"src/Shop", "src/Legacy/**", "ignored/**"};
  o.exclude_globs = {"**/Migrations", "**/*.g.cs"};
  auto summary = run_local_indexer(o);
  EXPECT_EQ(summary.files_seen, 5);
  auto roles = roles_by_path(index.str());
  std::vector<std::string> paths;
  for (const auto& [path, role] : roles) paths.push_back(path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{"src/Legacy/OldInvoice.cs", "src/Shop/Banner.cs", "src/Shop/InvoiceService.cs",
                                      "src/Shop/OrderTest.cs", "src/Shop/Strings.Designer.cs"}));
}

TEST(RolesIndexTest, ExcludingAFolderLaterRemovesItsNodes) {
  TempDir index;
  IndexOptions o = roles_options(index.str());
  run_local_indexer(o);
  o.exclude_globs = {"src/Legacy", "tests"};
  auto summary = run_local_indexer(o);
  EXPECT_EQ(summary.files_removed, 2);
  auto roles = roles_by_path(index.str());
  EXPECT_EQ(roles.count("src/Legacy/OldInvoice.cs"), 0u);
  EXPECT_EQ(roles.count("tests/Shop.Tests/InvoiceServiceTests.cs"), 0u);
  EXPECT_EQ(roles.size(), 10u);
}

TEST(RolesIndexTest, SourceMethodOutranksTheTestMethodUnlessTheQueryAsksForTests) {
  TempDir plain, roles, acl_dir;
  const std::string acl = acl_dir.str() + "/acl.json";
  std::ofstream(acl) << R"({"default": {"metadata": {"role": "source"}}})";
  IndexOptions without_roles = roles_options(plain.str());
  without_roles.acl_file = acl;
  run_local_indexer(without_roles);
  run_local_indexer(roles_options(roles.str()));
  const std::string test_method = "cs:Shop.Tests.InvoiceServiceTests.ComputeTotal()";
  const std::string source_method = "cs:Shop.InvoiceService.ComputeTotal(decimal,decimal,string)";
  for (auto type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
    SCOPED_TRACE(std::string(to_string(type)));
    EXPECT_EQ(hit_ids(plain.str(), type, "ComputeTotal", json::object(), 1), std::vector<std::string>{test_method});
    EXPECT_EQ(hit_ids(roles.str(), type, "ComputeTotal", json::object(), 1), std::vector<std::string>{source_method});
  }
  EXPECT_EQ(hit_ids(roles.str(), SearchType::kBm25, "ComputeTotal tests", json::object(), 1),
            std::vector<std::string>{test_method});
}

TEST(RolesIndexTest, RoleFilterKeepsOnlyThatRole) {
  TempDir index;
  run_local_indexer(roles_options(index.str()));
  EXPECT_EQ(hit_ids(index.str(), SearchType::kBm25, "ComputeTotal", {{"role", "test"}}),
            (std::vector<std::string>{"cs:Shop.Tests.InvoiceServiceTests.ComputeTotal()",
                                      "cs:Shop.Tests.InvoiceServiceTests"}));
  // The DbScripts copy of dbo.Invoice is a duplicate of the declarative table, so search skips it.
  EXPECT_EQ(hit_ids(index.str(), SearchType::kBm25, "Invoice", {{"role", "migration"}}),
            (std::vector<std::string>{"cs:Shop.Migrations.AddInvoices", "cs:Shop.Migrations.AddInvoices.Up()"}));
  LocalBackend backend(index.str());
  auto table = backend.describe({"sql:dbo.Invoice"}, "shop", "main", {{"role", "source"}}, std::nullopt);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].path, "src/Sql/dbo/Tables/Invoice.sql");
}

}  // namespace
}  // namespace attractor::retrieval
