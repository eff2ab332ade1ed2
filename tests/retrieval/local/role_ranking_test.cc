#include "retrieval/local/role_ranking.h"

#include <gtest/gtest.h>

namespace attractor::retrieval {
namespace {

TEST(RoleRankingTest, DemotesEveryRoleTheQueryDoesNotName) {
  using Roles = std::set<std::string>;
  EXPECT_EQ(demoted_roles("ComputeTotal"), (Roles{"generated", "migration", "test"}));
  EXPECT_EQ(demoted_roles("ComputeTotal tests"), (Roles{"generated", "migration"}));
  EXPECT_EQ(demoted_roles("InvoiceServiceTests"), (Roles{"generated", "migration"}));
  EXPECT_EQ(demoted_roles("which migration adds Invoice"), (Roles{"generated", "test"}));
  EXPECT_EQ(demoted_roles("Migrator and testing of generated code"), Roles{});
  EXPECT_EQ(demoted_roles("contest"), (Roles{"generated", "migration", "test"}));
}

TEST(RoleRankingTest, MovesDemotedHitsAfterTheOthersAndRenumbers) {
  std::vector<SearchHit> hits{{"t1", 9, 1}, {"s1", 8, 2}, {"m1", 7, 3}, {"u1", 6, 4}, {"s2", 5, 5}};
  std::map<std::string, std::string> roles{{"t1", "test"}, {"s1", "source"}, {"m1", "migration"}, {"s2", "source"}};
  auto out = prefer_roles(hits, roles, {"test", "migration"}, {}, 4);
  EXPECT_EQ(out, (std::vector<SearchHit>{{"s1", 8, 1}, {"u1", 6, 2}, {"s2", 5, 3}, {"t1", 9, 4}}));
  EXPECT_EQ(prefer_roles(hits, roles, {}, {}, 2), (std::vector<SearchHit>{{"t1", 9, 1}, {"s1", 8, 2}}));
  EXPECT_EQ(role_candidates(10), 28);
}

TEST(RoleRankingTest, MovesPromotedHitsBeforeTheOthers) {
  std::vector<SearchHit> hits{{"s1", 9, 1}, {"t1", 8, 2}, {"m1", 7, 3}, {"t2", 6, 4}};
  std::map<std::string, std::string> roles{{"t1", "test"}, {"m1", "migration"}, {"t2", "test"}};
  EXPECT_EQ(prefer_roles(hits, roles, {"migration"}, {"test"}, 4),
            (std::vector<SearchHit>{{"t1", 8, 1}, {"t2", 6, 2}, {"s1", 9, 3}, {"m1", 7, 4}}));
}

}  // namespace
}  // namespace attractor::retrieval
