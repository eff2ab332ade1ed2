#include "retrieval/local/vector_index.h"

#include <gtest/gtest.h>

#include "retrieval/backend.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

std::vector<float> unit(int dim, int hot, float second = 0.0f, int other = -1) {
  std::vector<float> v(dim, 0.0f);
  v[hot] = 1.0f;
  if (other >= 0) v[other] = second;
  normalize(v);
  return v;
}

class VectorIndexTest : public ::testing::TestWithParam<std::string> {};

TEST_P(VectorIndexTest, AddSearchRemoveSaveLoad) {
  VectorIndex index(4, GetParam());
  std::vector<float> all;
  for (int i = 0; i < 4; ++i) {
    auto v = unit(4, i);
    all.insert(all.end(), v.begin(), v.end());
  }
  index.add({10, 11, 12, 13}, all);
  EXPECT_EQ(index.size(), 4);
  auto q = unit(4, 1, 0.5f, 2);
  auto hits = index.search(q, 2, nullptr);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].first, 11);
  EXPECT_EQ(hits[1].first, 12);
  EXPECT_NEAR(hits[0].second, 1.0f / std::sqrt(1.25f), 1e-5);

  std::vector<int64_t> allowed = {12, 13};
  hits = index.search(q, 5, &allowed);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].first, 12);
  EXPECT_EQ(hits[1].first, 13);

  index.remove({11});
  EXPECT_EQ(index.size(), 3);
  EXPECT_EQ(index.search(q, 1, nullptr).at(0).first, 12);

  testing::TempDir dir;
  index.save(dir.str() + "/v.faiss");
  auto loaded = VectorIndex::load(dir.str() + "/v.faiss");
  EXPECT_EQ(loaded.kind(), GetParam());
  EXPECT_EQ(loaded.dimension(), 4);
  EXPECT_EQ(loaded.search(q, 3, nullptr), index.search(q, 3, nullptr));
  std::vector<int64_t> none;
  EXPECT_TRUE(loaded.search(q, 3, &none).empty());
}

INSTANTIATE_TEST_SUITE_P(Kinds, VectorIndexTest, ::testing::Values("flat", "hnsw"));

TEST(VectorIndexErrors, BadInputs) {
  EXPECT_THROW(VectorIndex(4, "ivf"), RetrievalError);
  VectorIndex index(4, "flat");
  EXPECT_THROW(index.add({1}, {1.0f, 0.0f}), RetrievalError);
  EXPECT_THROW(VectorIndex::load("/nonexistent/x.faiss"), RetrievalError);
}

}  // namespace
}  // namespace attractor::retrieval
