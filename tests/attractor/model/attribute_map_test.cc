#include "attractor/model/attribute_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace attractor {
namespace {

std::vector<std::string> keys_of(const AttributeMap& attrs) {
  std::vector<std::string> out;
  for (const auto& [key, value] : attrs) out.push_back(key);
  return out;
}

TEST(AttributeMapTest, IteratesInKeyOrderWhateverTheInsertionOrder) {
  AttributeMap attrs;
  EXPECT_TRUE(attrs.empty());
  EXPECT_TRUE(attrs.insert_or_assign("shape", Value(ValueKind::kBare, "box")));
  EXPECT_TRUE(attrs.insert_or_assign("label", Value(ValueKind::kString, "Plan")));
  EXPECT_TRUE(attrs.insert_or_assign("prompt", Value(ValueKind::kString, "do it")));
  EXPECT_EQ(keys_of(attrs), (std::vector<std::string>{"label", "prompt", "shape"}));
  EXPECT_EQ(attrs.size(), 3u);
}

TEST(AttributeMapTest, AssigningAnExistingKeyReplacesItsValue) {
  AttributeMap attrs;
  attrs.insert_or_assign("label", Value(ValueKind::kString, "a", {2, 5, 20}));
  EXPECT_FALSE(attrs.insert_or_assign("label", Value(ValueKind::kString, "b", {3, 7, 40})));
  ASSERT_EQ(attrs.size(), 1u);
  auto it = attrs.find("label");
  ASSERT_NE(it, attrs.end());
  EXPECT_EQ(it->second.text, "b");
  EXPECT_EQ(it->second.location.line, 3);
  EXPECT_EQ(it->second.location.column, 7);
}

TEST(AttributeMapTest, FindEraseAndSubscript) {
  AttributeMap attrs;
  attrs["weight"] = Value(ValueKind::kInteger, "2");
  attrs["condition"].text = "outcome=success";
  EXPECT_EQ(attrs.count("weight"), 1u);
  EXPECT_TRUE(attrs.contains("condition"));
  EXPECT_EQ(attrs.find("missing"), attrs.end());
  EXPECT_EQ(attrs.erase("weight"), 1u);
  EXPECT_EQ(attrs.erase("weight"), 0u);
  EXPECT_EQ(keys_of(attrs), (std::vector<std::string>{"condition"}));
  const AttributeMap& view = attrs;
  EXPECT_EQ(view.find("condition")->second.text, "outcome=success");
}

// Past kSmall entries new keys go to the second array; every operation must still see one map
// in key order. Checked against std::map on random keys, with copies and erasures mixed in.
TEST(AttributeMapTest, LargeMapsBehaveLikeAnOrderedMap) {
  std::mt19937 random(7);
  AttributeMap attrs;
  std::map<std::string, std::string> expected;
  for (int i = 0; i < 5000; ++i) {
    std::string key = "k" + std::to_string(random() % 3000);
    std::string text = std::to_string(i);
    if (i % 7 == 3) {
      EXPECT_EQ(attrs.erase(key), expected.erase(key)) << key;
      continue;
    }
    EXPECT_EQ(attrs.insert_or_assign(key, Value(ValueKind::kString, text)), expected.count(key) == 0) << key;
    expected[key] = text;
    if (i % 997 == 0) {
      AttributeMap copy = attrs;
      EXPECT_EQ(keys_of(copy), keys_of(attrs));
    }
  }
  ASSERT_EQ(attrs.size(), expected.size());
  auto want = expected.begin();
  for (const auto& [key, value] : attrs) {
    ASSERT_EQ(key, want->first);
    EXPECT_EQ(value.text, want->second);
    ++want;
  }
  for (const auto& [key, text] : expected) {
    auto it = attrs.find(key);
    ASSERT_NE(it, attrs.end()) << key;
    EXPECT_EQ(it->second.text, text);
  }
  AttributeMap moved = std::move(attrs);
  EXPECT_EQ(moved.size(), expected.size());
}

}  // namespace
}  // namespace attractor
