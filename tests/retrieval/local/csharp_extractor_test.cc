#include "retrieval/local/csharp_extractor.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace attractor::retrieval {
namespace {

std::vector<std::string> ids(const ExtractedFile& file) {
  std::vector<std::string> out;
  for (const auto& n : file.nodes) out.push_back(n.id);
  return out;
}

std::vector<std::string> issues(const ExtractedFile& file) {
  std::vector<std::string> out;
  for (const auto& i : file.issues)
    out.push_back(std::to_string(i.line) + ":" + std::to_string(i.column) + " " + i.message);
  return out;
}

// The six lines that crashed `attractor index` on dotnet/efcore (issue 37): the stray `{` makes
// tree-sitter read `Name: x,` as a field declaration without a type, a null node.
TEST(CSharpExtractorTest, GenericArityCountsOnlyTheOutermostArguments) {
  EXPECT_EQ(generic_arity("Repository"), 0);
  EXPECT_EQ(generic_arity("Repository<T>"), 1);
  EXPECT_EQ(generic_arity("A.B.Repository<Cipher, Guid>"), 2);
  EXPECT_EQ(generic_arity("Map<Dictionary<string, int>, List<Tuple<int, int>>>"), 2);
}

TEST(CSharpExtractorTest, StrayBraceInPartialClassIsAParseIssueNotACrash) {
  auto file = extract_csharp(
      "public partial class Foo {\n"
      "{\n"
      "    Name: x,\n"
      "    Kind: y,\n"
      "    Call(a);\n"
      "}\n");
  EXPECT_EQ(ids(file), (std::vector<std::string>{"cs:Foo"}));
  EXPECT_EQ(issues(file), (std::vector<std::string>{"1:26 syntax error near '{'", "3:9 syntax error near ':'",
                                                    "4:9 syntax error near ': y'", "5:5 syntax error near 'Call'"}));
}

TEST(CSharpExtractorTest, SyntaxErrorSnippetEscapesControlBytesAndKeepsWholeCharacters) {
  auto file = extract_csharp(
      "class A { \x01\x02 }\nclass B { void M() { ééééééééééééééééééééééééééééééééééééééééééé } }\n");
  std::string forty;
  for (int i = 0; i < 40; ++i) forty += "é";
  EXPECT_EQ(ids(file), (std::vector<std::string>{"cs:A", "cs:B", "cs:B.M()"}));
  EXPECT_EQ(issues(file), (std::vector<std::string>{"1:11 syntax error near '\\x01\\x02'",
                                                    "2:22 syntax error near '" + forty + "'"}));
}

std::string repeated(const std::string& part, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += part;
  return out;
}

// 100,000 levels of parentheses, blocks or `+` overflowed the stack of a recursive walk.
TEST(CSharpExtractorTest, DeepNestingStopsWithOneParseIssueNotAStackOverflow) {
  const int depth = 100000;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {repeated("(", depth) + "1" + repeated(")", depth), "2:1018"},
      {repeated("1 + ", depth) + "\"x\"", "2:23"},
  };
  for (const auto& [body, where] : cases) {
    auto file = extract_csharp("class A {\n  string M() { return " + body + "; }\n}\n");
    EXPECT_EQ(ids(file), (std::vector<std::string>{"cs:A", "cs:A.M()"}));
    EXPECT_EQ(issues(file),
              (std::vector<std::string>{where + " nesting deeper than 1000 levels; the code inside is not read"}));
  }
  auto blocks = extract_csharp("class A {\n  void M() " + repeated("{", depth) + repeated("}", depth) + "\n}\n");
  EXPECT_EQ(ids(blocks), (std::vector<std::string>{"cs:A", "cs:A.M()"}));
  EXPECT_EQ(issues(blocks),
            (std::vector<std::string>{"2:1009 nesting deeper than 1000 levels; the code inside is not read"}));
}

TEST(CSharpExtractorTest, TypesNestedDeeperThan32LevelsAreNotRead) {
  auto file = extract_csharp(repeated("class T {\n", 40) + repeated("}\n", 40));
  ASSERT_EQ(file.nodes.size(), 32u);
  EXPECT_EQ(file.nodes.back().id, "cs:" + repeated("T.", 31) + "T");
  EXPECT_EQ(issues(file),
            (std::vector<std::string>{"33:1 types nested deeper than 32 levels; the inner ones are not read"}));
}

// What the linker resolves names with (docs/retrieval.md section 5.2): the directives in force at
// each type (a namespace block's own `using` only inside it), aliases, `using static`, `global
// using`, the type's arity and each base as written.
TEST(CSharpExtractorTest, TypesRecordTheUsingsInForceAndTheirBasesAsWritten) {
  auto file = extract_csharp(
      "global using Shop.Core;\n"
      "using System;\n"
      "using static Shop.Math;\n"
      "using Repo = Shop.Data.Repository<Shop.Order, int>;\n"
      "namespace Shop.A { using Shop.Data; public class Orders<T, U> : global::Shop.Data.Repository<T, U>, IOrders { } "
      "}\n"
      "namespace Shop.B { class Plain : Repo { } }\n");
  ASSERT_EQ(ids(file), (std::vector<std::string>{"cs:Shop.A.Orders<T,U>", "cs:Shop.B.Plain"}));
  const auto& a = file.nodes[0].facts;
  EXPECT_EQ(a["arity"], 2);
  EXPECT_EQ(a["usings"], (nlohmann::json{"Shop.Core", "System", "Shop.Data"}));
  EXPECT_EQ(a["global_usings"], (nlohmann::json{"Shop.Core"}));
  EXPECT_EQ(a["static_usings"], (nlohmann::json{"Shop.Math"}));
  EXPECT_EQ(a["aliases"], (nlohmann::json{{"Repo", "Shop.Data.Repository<Shop.Order,int>"}}));
  EXPECT_EQ(a["bases"], (nlohmann::json{"Repository", "IOrders"}));
  EXPECT_EQ(a["base_names"], nlohmann::json::parse(R"([{"qual":"Shop.Data","arity":2},{"qual":"","arity":0}])"));
  const auto& b = file.nodes[1].facts;
  EXPECT_EQ(b["arity"], 0);
  EXPECT_EQ(b["usings"], (nlohmann::json{"Shop.Core", "System"}));
  EXPECT_EQ(b["bases"], (nlohmann::json{"Repo"}));
}

}  // namespace
}  // namespace attractor::retrieval
