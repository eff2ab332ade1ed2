// What bm25 can match besides a node's own text: its kind and schema as name words, and the
// comments directly above it (C# doc comments, SQL header comments).
#include <gtest/gtest.h>

#include "support/inline_index.h"

namespace attractor::retrieval {
namespace {

class RankingWordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write("db/Tokens_Purge.sql",
          "-- Removes login tokens that passed their expiry date.\n"
          "CREATE PROCEDURE [Auth].[Tokens_Purge] AS DELETE FROM [Auth].[Tokens] WHERE [Until] < "
          "SYSUTCDATETIME();\nGO\n");
    write("db/Tokens.sql", "CREATE TABLE [Auth].[Tokens] ([Until] DATETIME2 NOT NULL);\nGO\n");
    write("db/ActiveTokens.sql", "CREATE VIEW [Auth].[ActiveTokens] AS SELECT * FROM [Auth].[Tokens];\nGO\n");
    write("src/Billing.cs",
          "namespace Shop;\npublic class Billing\n{\n    /// <summary>Emails the invoice to the customer.</summary>\n"
          "    public void Send(int id) { }\n    public void Other(int id) { }\n}\n");
    repo_.build();
  }

  void write(const std::string& rel, const std::string& text) { repo_.write(rel, text); }

  std::vector<std::string> bm25(const std::string& query) { return repo_.ids(query, SearchType::kBm25, 3); }

  testing::InlineIndex repo_;
};

TEST_F(RankingWordsTest, TheKindAndTheSchemaAreNameWords) {
  EXPECT_EQ(bm25("view").at(0), "sql:Auth.ActiveTokens");
  EXPECT_EQ(bm25("procedure auth").at(0), "sql:Auth.Tokens_Purge");
}

TEST_F(RankingWordsTest, CommentsAboveAnObjectAreItsWords) {
  EXPECT_EQ(bm25("expiry").at(0), "sql:Auth.Tokens_Purge");
  EXPECT_EQ(bm25("invoice emails").at(0), "cs:Shop.Billing.Send(int)");  // then the class that holds it
}

}  // namespace
}  // namespace attractor::retrieval
