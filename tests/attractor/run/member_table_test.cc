#include "attractor/run/member_table.h"

#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace attractor {
namespace {

std::string member(const std::string& key, int value) {
  return nlohmann::json(key).dump() + ":" + std::to_string(value);
}

TEST(MemberTable, EmptyTableIsEmptyObject) {
  MemberTable table;
  EXPECT_EQ(table.str(), "{}");
  table.erase("absent");
  EXPECT_EQ(table.str(), "{}");
  EXPECT_EQ(table.size(), 0u);
}

TEST(MemberTable, KeepsKeyOrderAndReplacesValues) {
  MemberTable table;
  table.set("b", member("b", 2));
  table.set("a", member("a", 1));
  table.set("c", member("c", 3));
  table.set("b", member("b", 20));
  EXPECT_EQ(table.str(), R"({"a":1,"b":20,"c":3})");
  table.erase("a");
  EXPECT_EQ(table.str(), R"({"b":20,"c":3})");
  EXPECT_EQ(table.size(), 2u);
}

// Random sets and erases across many chunk splits always serialize exactly like nlohmann::json.
TEST(MemberTable, MatchesJsonDumpUnderRandomChanges) {
  std::mt19937 random(12345);
  MemberTable table;
  nlohmann::json reference = nlohmann::json::object();
  for (int step = 0; step < 20000; ++step) {
    std::string key = "n" + std::to_string(random() % 3000);
    if (random() % 5 == 0) {
      table.erase(key);
      reference.erase(key);
    } else {
      int value = static_cast<int>(random() % 1000);
      table.set(key, member(key, value));
      reference[key] = value;
    }
    if (step % 997 == 0) ASSERT_EQ(table.str(), reference.dump()) << "after step " << step;
  }
  EXPECT_EQ(table.size(), reference.size());
  EXPECT_EQ(table.str(), reference.dump());
  for (auto it = reference.begin(); it != reference.end(); ++it) table.erase(it.key());
  EXPECT_EQ(table.str(), "{}");
}

}  // namespace
}  // namespace attractor
