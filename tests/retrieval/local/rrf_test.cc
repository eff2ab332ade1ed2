#include "retrieval/local/rrf.h"

#include <gtest/gtest.h>

namespace attractor::retrieval {
namespace {

std::vector<SearchHit> list(std::vector<std::string> ids) {
  std::vector<SearchHit> out;
  for (size_t i = 0; i < ids.size(); ++i) out.push_back({ids[i], 0.0, static_cast<int>(i) + 1});
  return out;
}

TEST(RrfTest, SumsScoresOfIdsInBothLists) {
  auto fused = fuse_rrf(list({"a", "b", "c"}), list({"c", "a", "d"}), 60, 4);
  ASSERT_EQ(fused.size(), 4u);
  EXPECT_EQ(fused[0].id, "a");  // 1/61 + 1/62
  EXPECT_DOUBLE_EQ(fused[0].score, 1.0 / 61 + 1.0 / 62);
  EXPECT_EQ(fused[1].id, "c");  // 1/63 + 1/61
  EXPECT_DOUBLE_EQ(fused[1].score, 1.0 / 63 + 1.0 / 61);
  EXPECT_EQ(fused[2].id, "b");  // 1/62, semantic rank 2 beats d (bm25 rank 3, 1/63)
  EXPECT_EQ(fused[3].id, "d");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(fused[i].rank, i + 1);
}

TEST(RrfTest, EqualScoresPreferLowerSemanticRank) {
  // x: semantic 1 only; y: bm25 1 only -> equal scores, x wins on semantic rank.
  auto fused = fuse_rrf(list({"x"}), list({"y"}), 60, 2);
  EXPECT_EQ(fused[0].id, "x");
  EXPECT_EQ(fused[1].id, "y");
  EXPECT_DOUBLE_EQ(fused[0].score, fused[1].score);
}

TEST(RrfTest, EqualScoresAndSemanticRankPreferLowerBm25Rank) {
  // p: semantic 2 + bm25 3; q: semantic 3 + bm25 2 -> same score, p has the lower semantic rank.
  // r: bm25 1 + semantic 4; s: semantic 1 + bm25 4 -> same score; s wins (semantic 1).
  auto fused = fuse_rrf(list({"s", "p", "q", "r"}), list({"r", "q", "p", "s"}), 60, 4);
  EXPECT_EQ(fused[0].id, "s");
  EXPECT_EQ(fused[1].id, "r");
  EXPECT_EQ(fused[2].id, "p");
  EXPECT_EQ(fused[3].id, "q");
}

TEST(RrfTest, BothRanksEqualFallsBackToId) {
  SearchHit m{"m", 0, 1}, k{"k", 0, 1};
  // Two ids with identical ranks in both lists (possible only with crafted input): id order decides.
  auto fused = fuse_rrf({m, k}, {m, k}, 60, 2);
  EXPECT_EQ(fused[0].id, "k");
  EXPECT_EQ(fused[1].id, "m");
}

TEST(RrfTest, BoundsAndSmallK) {
  EXPECT_TRUE(fuse_rrf({}, {}, 60, 5).empty());
  auto fused = fuse_rrf(list({"a", "b", "c"}), list({}), 1, 2);
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_DOUBLE_EQ(fused[0].score, 0.5);
  EXPECT_DOUBLE_EQ(fused[1].score, 1.0 / 3);
}

}  // namespace
}  // namespace attractor::retrieval
