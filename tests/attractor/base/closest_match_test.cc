#include "attractor/base/closest_match.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attractor {
namespace {

TEST(EditDistanceTest, CountsEditsAndAdjacentSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "ab"), 2u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("implement", "implment"), 1u);
  EXPECT_EQ(edit_distance("workdir", "workdri"), 1u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(ClosestMatchTest, PrefersTheNearestThenTheFirst) {
  const std::vector<std::string> names = {"review", "reviews", "revise"};
  EXPECT_EQ(closest_match("reveiw", names, 2), "review");
  EXPECT_EQ(closest_match("revize", names, 1), "revise");
  EXPECT_EQ(closest_match("zzzzzz", names, 2), "");
}

TEST(ClosestMatchTest, NeverMatchesNamesLongerThanTheLimit) {
  const std::string long_name(kLongestMatchedName + 1, 'a');
  const std::string near = long_name.substr(1) + "b";
  EXPECT_EQ(closest_match(long_name, {near}, 2), "");
}

TEST(SpellingIndexTest, AgreesWithClosestMatchIncludingTies) {
  const std::vector<std::string> names = {"plan", "plant", "implement", "implements", "test", "tests", "pland"};
  SpellingIndex index(names);
  for (const char* query : {"plam", "implment", "tset", "plans", "nothing", "implementt"}) {
    EXPECT_EQ(index.closest(query, 2), closest_match(query, names, 2)) << query;
  }
}

TEST(SpellingIndexTest, SkipsNamesTheFilterRefuses) {
  SpellingIndex index({"step1", "stepx"});
  EXPECT_EQ(index.closest("step2", 1), "step1");
  EXPECT_EQ(index.closest("step2", 1, [](const std::string& name) { return name != "step1"; }), "stepx");
}

TEST(SpellingIndexTest, StopsSuggestingOnceTheBudgetIsSpent) {
  // Each lookup of a 4-letter name against one 4-letter candidate costs 5 x 5 cells.
  SpellingIndex index({"plan"}, 60);
  EXPECT_EQ(index.closest("plam", 1), "plan");
  EXPECT_EQ(index.closest("plam", 1), "plan");
  EXPECT_EQ(index.budget_left(), 10u);
  EXPECT_EQ(index.closest("plam", 1), "");
  EXPECT_EQ(index.budget_left(), 0u);
  EXPECT_EQ(index.closest("plan", 1), "");
}

TEST(SpellingIndexTest, ALookupOnlyChargesForCandidatesOfANearbyLength) {
  SpellingIndex index({"a", "abcdefghij", "plan", "abcdefghijklmnopqrst"}, 1000);
  EXPECT_EQ(index.closest("plam", 1), "plan");
  EXPECT_EQ(index.budget_left(), 1000u - 25u);
}

}  // namespace
}  // namespace attractor
