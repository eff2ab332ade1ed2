#include "attractor/model/vertex_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attractor {
namespace {

TEST(VertexIndexTest, FindsEveryInsertedIdAcrossGrowth) {
  std::vector<std::string> ids;
  VertexIndex index;
  auto id_of = [&](std::size_t v) { return std::string_view(ids[v]); };
  for (std::size_t v = 0; v < 5000; ++v) {
    ids.push_back("n" + std::to_string(v * 7919 % 100003));
    ASSERT_FALSE(index.find(ids.back(), id_of).has_value());
    index.insert(v, id_of);
  }
  EXPECT_EQ(index.size(), ids.size());
  for (std::size_t v = 0; v < ids.size(); ++v) EXPECT_EQ(index.find(ids[v], id_of), v) << ids[v];
  EXPECT_FALSE(index.find("absent", id_of).has_value());
  EXPECT_FALSE(index.find("", id_of).has_value());
}

TEST(VertexIndexTest, EmptyIndexFindsNothing) {
  VertexIndex index;
  EXPECT_FALSE(index.find("a", [](std::size_t) { return std::string_view(); }).has_value());
}

}  // namespace
}  // namespace attractor
