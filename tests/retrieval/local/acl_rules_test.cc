#include "retrieval/local/acl_rules.h"

#include <gtest/gtest.h>

#include "retrieval/local/gitignore.h"
#include "retrieval/local/path_glob.h"

namespace attractor::retrieval {
namespace {

using V = std::vector<std::string>;

TEST(PathGlobTest, Patterns) {
  EXPECT_TRUE(glob_match("src/**", "src/a/b.cs"));
  EXPECT_TRUE(glob_match("**/*.sql", "db/tables/x.sql"));
  EXPECT_TRUE(glob_match("**/*.sql", "x.sql"));
  EXPECT_TRUE(glob_match("db/*/x.sql", "db/tables/x.sql"));
  EXPECT_FALSE(glob_match("db/*.sql", "db/tables/x.sql"));
  EXPECT_TRUE(glob_match("a/**/b", "a/b"));
  EXPECT_TRUE(glob_match("a/**/b", "a/x/y/b"));
  EXPECT_TRUE(glob_match("file?.[ch]s", "file1.cs"));
  EXPECT_FALSE(glob_match("file?.[!c]s", "file1.cs"));
}

TEST(GitIgnoreTest, Rules) {
  GitIgnore g;
  g.add_file("", "bin/\n*.generated.cs\n/root.cs\n# comment\nlogs/*.sql\n!keep.generated.cs\n");
  g.add_file("sub", "local.cs\n");
  EXPECT_TRUE(g.ignored("bin", true));
  EXPECT_TRUE(g.ignored("a/bin", true));
  EXPECT_FALSE(g.ignored("bin", false));
  EXPECT_TRUE(g.ignored("a/b/x.generated.cs", false));
  EXPECT_FALSE(g.ignored("a/keep.generated.cs", false));
  EXPECT_TRUE(g.ignored("root.cs", false));
  EXPECT_FALSE(g.ignored("a/root.cs", false));
  EXPECT_TRUE(g.ignored("logs/x.sql", false));
  EXPECT_TRUE(g.ignored("sub/local.cs", false));
  EXPECT_FALSE(g.ignored("local.cs", false));
  EXPECT_TRUE(g.ignored(".git", true));
}

TEST(AclRulesTest, DefaultThenMatchingRulesInOrder) {
  auto rules = AclRules::parse(R"({
    "default": {"acl_tags": ["public"], "classification_labels": "internal", "metadata": {"tenant": "acme", "tier": 1}},
    "rules": [
      {"pattern": "hr/**", "acl_tags": ["hr"], "replace": true, "metadata": {"tenant": "acme-hr"}},
      {"pattern": "**/*.sql", "acl_tags": ["dba"], "classification_labels": ["pii"]}
    ]})");
  auto a = rules.decide("src/x.cs");
  EXPECT_EQ(a.acl_tags, V{"public"});
  EXPECT_EQ(a.classification_labels, V{"internal"});
  EXPECT_EQ(a.metadata, (nlohmann::json{{"tenant", "acme"}, {"tier", "1"}}));
  auto b = rules.decide("hr/pay.sql");
  EXPECT_EQ(b.acl_tags, (V{"hr", "dba"}));
  EXPECT_EQ(b.classification_labels, V{"pii"});
  EXPECT_EQ(b.metadata["tenant"], "acme-hr");
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  EXPECT_TRUE(AclRules().decide("x").acl_tags.empty());
  EXPECT_THROW(AclRules::parse("{"), std::invalid_argument);
  EXPECT_THROW(AclRules::parse(R"({"rules": [{"acl_tags": ["x"]}]})"), std::invalid_argument);
  EXPECT_THROW(AclRules::parse(R"({"default": {"metadata": {"a": [1]}}})"), std::invalid_argument);
}

TEST(AclRulesTest, RulesOverrideTheMetadataGivenFirst) {
  auto rules = AclRules::parse(R"({
    "default": {"metadata": {"tenant": "acme"}},
    "rules": [{"pattern": "test/**", "metadata": {"role": "source"}}]})");
  nlohmann::json test_role = {{"role", "test"}};
  EXPECT_EQ(rules.decide("test/Fixtures.cs", test_role).metadata,
            (nlohmann::json{{"role", "source"}, {"tenant", "acme"}}));
  EXPECT_EQ(rules.decide("tests/A.cs", test_role).metadata, (nlohmann::json{{"role", "test"}, {"tenant", "acme"}}));
  EXPECT_NE(rules.decide("tests/A.cs", test_role).fingerprint(), rules.decide("tests/A.cs").fingerprint());
}

}  // namespace
}  // namespace attractor::retrieval
