#include "retrieval/local/query_analysis.h"

#include <gtest/gtest.h>

namespace attractor::retrieval {
namespace {

using Words = std::set<std::string>;

TEST(QueryAnalysisTest, AKindPhraseBecomesAPreferenceAndStopWordsGo) {
  QueryAnalysis a = analyze_query("which stored procedure deletes a cipher");
  EXPECT_EQ(a.search_text, "deletes cipher");
  EXPECT_EQ(a.kinds, Words{"procedure"});
  EXPECT_TRUE(a.roles.empty());
  a = analyze_query("Which stored procedure reads an organization user by id");
  EXPECT_EQ(a.search_text, "reads organization user id");
  EXPECT_EQ(a.kinds, Words{"procedure"});
}

TEST(QueryAnalysisTest, EachKindWordNamesItsKinds) {
  EXPECT_EQ(analyze_query("the views and tables of orders").kinds, (Words{"table", "view"}));
  EXPECT_EQ(analyze_query("a function that hashes").kinds, (Words{"function", "method"}));
  EXPECT_EQ(analyze_query("which interface or class or enum").kinds, (Words{"class", "enum", "interface"}));
  EXPECT_EQ(analyze_query("the sproc and trigger or constructor").kinds,
            (Words{"constructor", "procedure", "trigger"}));
  EXPECT_EQ(analyze_query("stored value").search_text, "stored value");
  EXPECT_EQ(analyze_query("GuidIdArray user defined table type").kinds, Words{"type"});
}

TEST(QueryAnalysisTest, AKindWordThatOnlyDescribesStaysATerm) {
  QueryAnalysis a = analyze_query("insert a row into the meetings queue table");
  EXPECT_EQ(a.search_text, "insert row meetings queue table");
  EXPECT_TRUE(a.kinds.empty());
  a = analyze_query("Cipher_Move procedure that puts ciphers into a folder");
  EXPECT_EQ(a.search_text, "Cipher_Move procedure puts ciphers folder");
  EXPECT_TRUE(a.names_identifier);
  EXPECT_EQ(analyze_query("run the test suite").roles, Words{"test"});
  EXPECT_TRUE(analyze_query("smoke test runs").roles.empty());
}

TEST(QueryAnalysisTest, RoleNounsBecomeRolePreferences) {
  QueryAnalysis a = analyze_query("which test checks that a user can leave an organization");
  EXPECT_EQ(a.search_text, "checks user leave organization");
  EXPECT_EQ(a.roles, Words{"test"});
  EXPECT_EQ(analyze_query("migrations that add a column").roles, Words{"migration"});
  EXPECT_TRUE(analyze_query("OrderServiceTests").roles.empty());
}

TEST(QueryAnalysisTest, IdentifiersSpelledLikeStopWordsStay) {
  EXPECT_EQ(analyze_query("Where GetById By").search_text, "GetById By");  // a sentence starts "Where"
  EXPECT_EQ(analyze_query("list Where By").search_text, "list Where By");
  EXPECT_EQ(analyze_query("find Where in the Table class").search_text, "find Where Table class");
  EXPECT_TRUE(analyze_query("find Where in the Table class").kinds.empty());  // "class" describes Table
  EXPECT_EQ(analyze_query("Cipher_DeleteById").search_text, "Cipher_DeleteById");
}

TEST(QueryAnalysisTest, AQueryOfOnlyStopWordsIsSearchedAsWritten) {
  QueryAnalysis a = analyze_query("which tables");
  EXPECT_EQ(a.search_text, "which tables");
  EXPECT_EQ(a.kinds, Words{"table"});
  EXPECT_TRUE(is_stop_word("which"));
  EXPECT_FALSE(is_stop_word("delete"));
}

}  // namespace
}  // namespace attractor::retrieval
