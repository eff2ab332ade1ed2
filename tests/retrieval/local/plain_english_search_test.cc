// Plain-English questions through the local backend (docs/retrieval.md section 4.1.1): kind
// phrases rank that kind first, stop words and question words match nothing, role nouns rank
// that role first, and an identifier spelled like a stop word is still searched.
#include <gtest/gtest.h>

#include "support/inline_index.h"

namespace attractor::retrieval {
namespace {

using Ids = std::vector<std::string>;

class PlainEnglishSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write("src/Sql/Cipher_DeleteById.sql",
          "CREATE PROCEDURE [dbo].[Cipher_DeleteById] @Id UNIQUEIDENTIFIER AS\nBEGIN\n"
          "  DELETE FROM [dbo].[Cipher] WHERE [Id] = @Id\nEND\nGO\n");
    write("src/Sql/OrganizationUser_ReadById.sql",
          "CREATE PROCEDURE [dbo].[OrganizationUser_ReadById] @Id UNIQUEIDENTIFIER AS\nBEGIN\n"
          "  SELECT * FROM [dbo].[OrganizationUser] WHERE [Id] = @Id\nEND\nGO\n");
    write("src/Sql/Cipher.sql", "CREATE TABLE [dbo].[Cipher] ([Id] UNIQUEIDENTIFIER NOT NULL);\nGO\n");
    write(
        "src/Core/StoredConditions.cs",
        "namespace Vault;\n/// <summary>Which conditions a stored procedure checks, and a reason for each.</summary>\n"
        "public enum StoredConditions { StoredProcedure, Which, A }\n");
    write("src/Core/CipherService.cs",
          "namespace Vault;\npublic class CipherService\n{\n"
          "    public void DeleteCipher(int id) { Delete(id); }\n"
          "    public void Where(int id) { }\n}\n");
    write("test/Core.Test/CipherServiceTests.cs",
          "namespace Vault.Test;\npublic class CipherServiceTests\n{\n"
          "    public void DeleteCipher_DeletesTheCipher() { new CipherService().DeleteCipher(1); }\n}\n");
    repo_.build();
  }

  void write(const std::string& rel, const std::string& text) { repo_.write(rel, text); }

  SearchResponse search(const std::string& query, SearchType type = SearchType::kBm25, int top_k = 3) {
    return repo_.search(query, type, top_k);
  }

  Ids ids(const std::string& query, SearchType type = SearchType::kBm25, int top_k = 3) {
    return repo_.ids(query, type, top_k);
  }

  testing::InlineIndex repo_;
};

TEST_F(PlainEnglishSearchTest, AKindPhraseRanksThatKindFirstAndItsWordsMatchNothing) {
  SearchResponse r = search("which stored procedure deletes a cipher");
  EXPECT_EQ(r.debug["query_terms"], "deletes cipher");
  EXPECT_EQ(r.debug["preferred_kinds"], nlohmann::json({"procedure"}));
  EXPECT_EQ(ids("which stored procedure deletes a cipher"),
            (Ids{"sql:dbo.Cipher_DeleteById", "cs:Vault.CipherService.DeleteCipher(int)", "cs:Vault.CipherService"}));
  for (SearchType type : {SearchType::kSemantic, SearchType::kHybrid}) {
    EXPECT_EQ(ids("which stored procedure deletes a cipher", type).at(0), "sql:dbo.Cipher_DeleteById");
  }
}

TEST_F(PlainEnglishSearchTest, EveryContentWordOfAProcedureNameFindsIt) {
  EXPECT_EQ(ids("Which stored procedure reads an organization user by id", SearchType::kBm25, 1),
            (Ids{"sql:dbo.OrganizationUser_ReadById"}));
}

TEST_F(PlainEnglishSearchTest, ARoleNounRanksThatRoleFirst) {
  EXPECT_EQ(ids("which test deletes a cipher", SearchType::kBm25, 1),
            (Ids{"cs:Vault.Test.CipherServiceTests.DeleteCipher_DeletesTheCipher()"}));
  EXPECT_EQ(ids("deletes a cipher", SearchType::kBm25, 1), (Ids{"cs:Vault.CipherService.DeleteCipher(int)"}));
}

TEST_F(PlainEnglishSearchTest, AnIdentifierSpelledLikeAStopWordIsSearched) {
  EXPECT_EQ(ids("CipherService Where", SearchType::kBm25, 1), (Ids{"cs:Vault.CipherService.Where(int)"}));
}

}  // namespace
}  // namespace attractor::retrieval
