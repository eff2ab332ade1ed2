#include "retrieval/local/code_tokens.h"

#include <gtest/gtest.h>

namespace attractor::retrieval {
namespace {

using V = std::vector<std::string>;

TEST(CodeTokensTest, SplitsIdentifiers) {
  EXPECT_EQ(split_identifier("GetMeetingById"), (V{"get", "meeting", "by", "id"}));
  EXPECT_EQ(split_identifier("getMeetingById"), (V{"get", "meeting", "by", "id"}));
  EXPECT_EQ(split_identifier("get_meeting_by_id"), (V{"get", "meeting", "by", "id"}));
  EXPECT_EQ(split_identifier("XMLHttpRequest2"), (V{"xml", "http", "request", "2"}));
  EXPECT_EQ(split_identifier("_repo"), (V{"repo"}));
  EXPECT_EQ(split_identifier("ID"), (V{"id"}));
}

TEST(CodeTokensTest, IndexTermsHoldWholeAndParts) {
  EXPECT_EQ(index_terms("x.GetMeetingById(id);"), "x getmeetingbyid get meeting by id id");
  EXPECT_EQ(index_terms("get_meeting_by_id"), "getmeetingbyid get meeting by id");
  EXPECT_EQ(index_terms("--"), "");
}

TEST(CodeTokensTest, MatchExpressionQuotesEveryTerm) {
  EXPECT_EQ(fts_match_expression("GetMeetingById", MatchOperator::kOr),
            "(\"getmeetingbyid\" OR (\"get\" \"meeting\" \"by\" \"id\"))");
  EXPECT_EQ(fts_match_expression("meeting \"room\" OR", MatchOperator::kAnd), "\"meeting\" AND \"room\" AND \"or\"");
  EXPECT_THROW(fts_match_expression(" *) ", MatchOperator::kOr), RetrievalError);
}

}  // namespace
}  // namespace attractor::retrieval
