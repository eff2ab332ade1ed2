#include "retrieval/local/tsql_lexer.h"

#include <gtest/gtest.h>

namespace attractor::retrieval {
namespace {

using Kind = TsqlToken::Kind;

std::vector<std::pair<Kind, std::string>> kinds(std::string_view sql) {
  std::vector<std::pair<Kind, std::string>> out;
  for (const auto& t : lex_tsql(sql).tokens) out.emplace_back(t.kind, std::string(t.text));
  return out;
}

TEST(TsqlLexerTest, NamesVariablesTempTablesStringsAndNumbers) {
  auto got = kinds("SELECT [a]]b].\"c d\", @x, @@ROWCOUNT, #t, ##g, N'it''s', 'x', 0x1F, 1.5 FROM dbo.T;");
  std::vector<std::pair<Kind, std::string>> want = {
      {Kind::kWord, "SELECT"}, {Kind::kQuotedName, "[a]]b]"}, {Kind::kPunct, "."}, {Kind::kQuotedName, "\"c d\""},
      {Kind::kPunct, ","},     {Kind::kVariable, "@x"},       {Kind::kPunct, ","}, {Kind::kVariable, "@@ROWCOUNT"},
      {Kind::kPunct, ","},     {Kind::kTempName, "#t"},       {Kind::kPunct, ","}, {Kind::kTempName, "##g"},
      {Kind::kPunct, ","},     {Kind::kString, "N'it''s'"},   {Kind::kPunct, ","}, {Kind::kString, "'x'"},
      {Kind::kPunct, ","},     {Kind::kNumber, "0x1F"},       {Kind::kPunct, ","}, {Kind::kNumber, "1.5"},
      {Kind::kWord, "FROM"},   {Kind::kWord, "dbo"},          {Kind::kPunct, "."}, {Kind::kWord, "T"},
      {Kind::kPunct, ";"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(unquote_tsql_name("[a]]b]"), "a]b");
  EXPECT_EQ(unquote_tsql_name("\"c d\""), "c d");
  EXPECT_EQ(unquote_tsql_name("plain"), "plain");
}

TEST(TsqlLexerTest, CommentsVanishAndNestedBlockCommentsClose) {
  auto got = kinds("a -- line [b\n/* outer /* inner */ still comment 'x */ c");
  std::vector<std::pair<Kind, std::string>> want = {{Kind::kWord, "a"}, {Kind::kWord, "c"}};
  EXPECT_EQ(got, want);
}

TEST(TsqlLexerTest, GoAloneOnItsLineEndsABatch) {
  auto lexed = lex_tsql("SELECT 1\n  GO  \nSELECT go FROM t\ngo 5 -- twice\nGOTO x\nGo");
  std::vector<std::string> batch_ends;
  for (const auto& t : lexed.tokens) {
    if (t.kind == Kind::kBatchEnd) batch_ends.push_back(std::string(t.text) + "@" + std::to_string(t.line));
  }
  EXPECT_EQ(batch_ends, (std::vector<std::string>{"GO@2", "go@4", "Go@6"}));
}

TEST(TsqlLexerTest, UnclosedConstructsAreIssuesWithTheirPosition) {
  auto lexed = lex_tsql("SELECT 1\n  FROM [dbo.T\n");
  ASSERT_EQ(lexed.issues.size(), 1u);
  EXPECT_EQ(lexed.issues[0].line, 2);
  EXPECT_EQ(lexed.issues[0].column, 8);
  EXPECT_EQ(lexed.issues[0].message, "unterminated bracketed name");
  EXPECT_EQ(lex_tsql("x = 'abc").issues.at(0).message, "unterminated string");
  EXPECT_EQ(lex_tsql("/* a /* b */").issues.at(0).message, "unterminated block comment");
  EXPECT_EQ(lex_tsql("\"x").issues.at(0).message, "unterminated quoted name");
}

TEST(TsqlLexerTest, AByteOrderMarkIsNotPartOfTheFirstWord) {
  auto lexed = lex_tsql(
      "\xEF\xBB\xBF"
      "CREATE VIEW v");
  ASSERT_EQ(lexed.tokens.size(), 3u);
  EXPECT_EQ(lexed.tokens[0].text, "CREATE");
  EXPECT_EQ(lexed.tokens[0].begin, 3u);
}

TEST(TsqlLexerTest, LinesCountInsideStringsAndComments) {
  auto lexed = lex_tsql("'a\nb' /*\n\n*/ x");
  ASSERT_EQ(lexed.tokens.size(), 2u);
  EXPECT_EQ(lexed.tokens[1].line, 4);
}

}  // namespace
}  // namespace attractor::retrieval
