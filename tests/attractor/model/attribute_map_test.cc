#include "attractor/model/attribute_map.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace attractor {
namespace {

std::vector<std::string> keys_of(const AttributeMap& attrs) {
  std::vector<std::string> out;
  for (const auto& [key, value] : attrs) out.emplace_back(key);
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
  EXPECT_EQ(it->second.text(), "b");
  EXPECT_EQ(it->second.location().line, 3);
  EXPECT_EQ(it->second.location().column, 7);
}

TEST(AttributeMapTest, FindAndErase) {
  AttributeMap attrs;
  attrs.insert_or_assign("weight", Value(ValueKind::kInteger, "2"));
  attrs.insert_or_assign("condition", ValueKind::kString, "outcome=success");
  EXPECT_EQ(attrs.count("weight"), 1u);
  EXPECT_TRUE(attrs.contains("condition"));
  EXPECT_EQ(attrs.find("missing"), attrs.end());
  EXPECT_EQ(attrs.erase("weight"), 1u);
  EXPECT_EQ(attrs.erase("weight"), 0u);
  EXPECT_EQ(keys_of(attrs), (std::vector<std::string>{"condition"}));
  const AttributeMap& view = attrs;
  EXPECT_EQ(view.find("condition")->second.text(), "outcome=success");
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
    EXPECT_EQ(value.text(), want->second);
    ++want;
  }
  for (const auto& [key, text] : expected) {
    auto it = attrs.find(key);
    ASSERT_NE(it, attrs.end()) << key;
    EXPECT_EQ(it->second.text(), text);
  }
  AttributeMap moved = std::move(attrs);
  EXPECT_EQ(moved.size(), expected.size());
}

/// `text`'s slice `part` (found by content), as the parser hands values over.
std::string_view slice(const SourceFile& file, std::string_view part) {
  return std::string_view(file.text()).substr(file.text().find(part), part.size());
}

// Parsed values are views of the file: same text, kind and location as a copy would have, and the
// map keeps the file alive after every other owner let go of it.
TEST(AttributeMapTest, ValuesInTheSourceAreViewsWithTheirLocation) {
  auto file = std::make_shared<const SourceFile>("f.dot", "digraph G {\n  a [max_retries=12, label=\"Plan it\"]\n}\n");
  AttributeMap attrs;
  EXPECT_TRUE(attrs.insert_or_assign_in_source("max_retries", ValueKind::kInteger, slice(*file, "12"), false, file));
  EXPECT_TRUE(attrs.insert_or_assign_in_source("label", ValueKind::kString, slice(*file, "Plan it"), true, file));
  EXPECT_EQ(attrs.source(), file);
  file.reset();
  AttributeMap copy = attrs;
  attrs = AttributeMap();
  auto label = copy.find("label");
  ASSERT_NE(label, copy.end());
  EXPECT_EQ(label->second.text(), "Plan it");
  EXPECT_EQ(label->second.kind(), ValueKind::kString);
  SourceLocation at = label->second.location();
  EXPECT_EQ(at.line, 2);
  EXPECT_EQ(at.column, 28);
  EXPECT_EQ(copy.source()->text()[at.offset], '"');
  auto retries = copy.find("max_retries");
  EXPECT_EQ(retries->second.text(), "12");
  EXPECT_EQ(retries->second.kind(), ValueKind::kInteger);
  EXPECT_EQ(retries->second.location().column, 18);
}

// A value from another file than the map's is copied, with the location it had in its own file.
TEST(AttributeMapTest, ValuesFromAnotherFileAreCopied) {
  auto first = std::make_shared<const SourceFile>("a.dot", "x=1");
  auto second = std::make_shared<const SourceFile>("b.dot", "\n\ny=two");
  AttributeMap attrs;
  attrs.insert_or_assign_in_source("x", ValueKind::kInteger, slice(*first, "1"), false, first);
  attrs.insert_or_assign_in_source("y", ValueKind::kBare, slice(*second, "two"), false, second);
  EXPECT_EQ(attrs.source(), first);
  second.reset();
  auto y = attrs.find("y");
  EXPECT_EQ(y->second.text(), "two");
  EXPECT_EQ(y->second.location().line, 3);
  EXPECT_EQ(y->second.location().column, 3);
}

// Names too long for the shared table live with their value; the map cannot tell the difference.
TEST(AttributeMapTest, LongNamesAreStoredWithTheirValue) {
  const std::string long_name(AttributeEntry::kMaxTableNameBytes + 1, 'n');
  auto file = std::make_shared<const SourceFile>("f.dot", "v=\"quoted\"");
  AttributeMap attrs;
  attrs.insert_or_assign("b", ValueKind::kString, "short");
  attrs.insert_or_assign_in_source(long_name, ValueKind::kString, slice(*file, "quoted"), true, file);
  attrs.insert_or_assign("a" + long_name, ValueKind::kBare, "x", {4, 2, 9});
  AttributeMap copy = attrs;
  EXPECT_EQ(keys_of(copy), (std::vector<std::string>{"a" + long_name, "b", long_name}));
  EXPECT_EQ(copy.find(long_name)->second.text(), "quoted");
  EXPECT_EQ(copy.find(long_name)->second.location().column, 3);
  EXPECT_EQ(copy.find("a" + long_name)->second.location().line, 4);
  EXPECT_FALSE(copy.insert_or_assign(long_name, ValueKind::kString, "replaced"));
  EXPECT_EQ(copy.find(long_name)->second.text(), "replaced");
  EXPECT_EQ(copy.erase("a" + long_name), 1u);
  EXPECT_EQ(copy.size(), 2u);
}

// A value may be replaced by a copy of its own text.
TEST(AttributeMapTest, AValueCanBeReplacedByItsOwnText) {
  AttributeMap attrs;
  attrs.insert_or_assign("prompt", ValueKind::kString, "a prompt longer than any small-string buffer", {1, 2, 1});
  ValueView old = attrs.find("prompt")->second;
  attrs.insert_or_assign("prompt", old.kind(), old.text().substr(2), old.location());
  EXPECT_EQ(attrs.find("prompt")->second.text(), "prompt longer than any small-string buffer");
  EXPECT_EQ(attrs.find("prompt")->second.location().column, 2);
  attrs.replace_text(attrs.find("prompt"), attrs.find("prompt")->second.text().substr(7));
  EXPECT_EQ(attrs.find("prompt")->second.text(), "longer than any small-string buffer");
  EXPECT_EQ(attrs.find("prompt")->second.location().column, 2);
}

// replace_text keeps what the value was: its name (also one kept with the value), kind and
// location, even when the value was a view of the file (the goal transform relies on it).
TEST(AttributeMapTest, ReplacingTheTextKeepsNameKindAndLocation) {
  const std::string long_name(AttributeEntry::kMaxTableNameBytes + 5, 'p');
  auto file = std::make_shared<const SourceFile>("f.dot", "a [prompt=\"Do $goal\", n=7]");
  AttributeMap attrs;
  attrs.insert_or_assign_in_source("prompt", ValueKind::kString, slice(*file, "Do $goal"), true, file);
  attrs.insert_or_assign_in_source(long_name, ValueKind::kInteger, slice(*file, "7"), false, file);
  attrs.replace_text(attrs.find("prompt"), "Do it");
  attrs.replace_text(attrs.find(long_name), "8");
  EXPECT_EQ(keys_of(attrs), (std::vector<std::string>{long_name, "prompt"}));
  ValueView prompt = attrs.find("prompt")->second;
  EXPECT_EQ(prompt.text(), "Do it");
  EXPECT_EQ(prompt.kind(), ValueKind::kString);
  EXPECT_EQ(prompt.location().column, 11);
  ValueView number = attrs.find(long_name)->second;
  EXPECT_EQ(number.text(), "8");
  EXPECT_EQ(number.kind(), ValueKind::kInteger);
  EXPECT_EQ(number.location().column, 25);
}

// Issue 19: a 100,000-node pipeline holds 1.2 million attributes, so every byte of an entry is
// 1.2 MB of peak memory. An entry was 88 bytes (a std::string name and a Value) before.
TEST(AttributeMapTest, AnEntryStaysSixteenBytes) { EXPECT_EQ(sizeof(AttributeEntry), 16u); }

}  // namespace
}  // namespace attractor
