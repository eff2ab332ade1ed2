#include "attractor/base/json_limits.h"

#include <string>

#include <gtest/gtest.h>

namespace attractor {
namespace {

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonLimitsTest, DepthIsCountedWithoutRecursion) {
  EXPECT_EQ(json_depth(nlohmann::json(3)), 0);
  EXPECT_EQ(json_depth(nlohmann::json::parse("[]")), 1);
  EXPECT_EQ(json_depth(nlohmann::json::parse(R"({"a":[1,{"b":[]}],"c":2})")), 4);
  EXPECT_EQ(json_depth(parse_json_limited(nested(256), "x")), 256);
  EXPECT_EQ(json_depth(parse_json_limited(nested(256), "x"), 10), 11);
  EXPECT_EQ(json_depth_problem(parse_json_limited(nested(200), "x")), "");
  EXPECT_EQ(json_depth_problem(parse_json_limited(nested(201), "x")), "nested deeper than 200 levels");
}

TEST(JsonLimitsTest, ParseOrDiscardedNeverThrows) {
  EXPECT_EQ(parse_json_or_discarded(R"({"a":1})"), nlohmann::json::parse(R"({"a":1})"));
  EXPECT_TRUE(parse_json_or_discarded("{\"a\":").is_discarded());
  EXPECT_TRUE(parse_json_or_discarded("1e999").is_discarded());
  EXPECT_TRUE(parse_json_or_discarded(nested(100000)).is_discarded());
  EXPECT_FALSE(parse_json_or_discarded(nested(256)).is_discarded());
  EXPECT_TRUE(parse_json_or_discarded(nested(5), 4).is_discarded());
}

}  // namespace
}  // namespace attractor
