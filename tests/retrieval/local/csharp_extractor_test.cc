#include "retrieval/local/csharp_extractor.h"

#include <gtest/gtest.h>

#include <string>
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

}  // namespace
}  // namespace attractor::retrieval
