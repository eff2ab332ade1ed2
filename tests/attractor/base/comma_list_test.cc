#include "attractor/base/comma_list.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

using Items = std::vector<std::string>;

TEST(CommaList, TrimsItemsAndDropsEmptyOnes) {
  EXPECT_EQ(split_comma_list(" fail ,, success ,\t"), (Items{"fail", "success"}));
  EXPECT_EQ(split_comma_list("one"), (Items{"one"}));
  EXPECT_EQ(split_comma_list(""), Items{});
  EXPECT_EQ(split_comma_list(" , \n,"), Items{});
}

TEST(CommaList, TrimsOnlyTheGivenBlanks) {
  EXPECT_EQ(split_comma_list("a\n, b ", " \t"), (Items{"a\n", "b"}));
  EXPECT_EQ(split_comma_list("a\n, b "), (Items{"a", "b"}));
}

}  // namespace
}  // namespace attractor
