#include "retrieval/local/path_scope.h"

#include <gtest/gtest.h>

namespace attractor::retrieval {
namespace {

TEST(PathScopeTest, EverythingWithoutPatterns) {
  PathScope scope;
  EXPECT_TRUE(scope.enters("src"));
  EXPECT_TRUE(scope.selects("src/Shop/A.cs"));
}

TEST(PathScopeTest, IncludesSelectFilesByPathOrParentDirectory) {
  PathScope scope({"src/Shop", "**/*.sql"}, {});
  EXPECT_TRUE(scope.selects("src/Shop/A.cs"));
  EXPECT_TRUE(scope.selects("src/Shop/Migrations/B.cs"));
  EXPECT_TRUE(scope.selects("util/Migrator/DbScripts/1.sql"));
  EXPECT_FALSE(scope.selects("src/Legacy/Old.cs"));
  EXPECT_FALSE(scope.selects("src/ShopX/A.cs"));
  EXPECT_TRUE(scope.enters("src/Legacy"));
}

TEST(PathScopeTest, ExcludesWinAndPruneDirectories) {
  PathScope scope({"src/**"}, {"src/Legacy", "**/*.g.cs"});
  EXPECT_FALSE(scope.enters("src/Legacy"));
  EXPECT_TRUE(scope.enters("src/Shop"));
  EXPECT_FALSE(scope.selects("src/Legacy/Old.cs"));
  EXPECT_FALSE(scope.selects("src/Shop/A.g.cs"));
  EXPECT_TRUE(scope.selects("src/Shop/A.cs"));
  EXPECT_FALSE(scope.selects("tests/A.cs"));
}

}  // namespace
}  // namespace attractor::retrieval
