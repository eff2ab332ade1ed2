// bm25's synonym expansion end to end (docs/retrieval.md section 4.1.1): over a small C# repository,
// questions that share no word with the method they ask for find it through the system's WordNet
// (Debian's wordnet-base, installed by .ci/deps.sh), identifiers in the query are not expanded, a
// synonym weighs less than the query's own word, and without a lexicon search is as before.
#include <gtest/gtest.h>

#include <algorithm>

#include "retrieval/local/query_expansion.h"
#include "retrieval/local/wordnet.h"
#include "support/fake_lexicon.h"
#include "support/inline_index.h"

namespace attractor::retrieval {
namespace {

using Ids = std::vector<std::string>;

class SynonymSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.write("src/Teams/GroupService.cs",
                "namespace Teams;\npublic class GroupService\n{\n"
                "    public void Join(Group group, User user) { group.Add(user); }\n"
                "    public void Leave(Group group, User user) { group.Drop(user); }\n"
                "    public void Rename(Group group, string name) { group.Name = name; }\n}\n");
    repo_.write("src/Teams/MemberList.cs",
                "namespace Teams;\npublic class MemberList\n{\n"
                "    public void Add(Member member) { }\n"
                "    public void Remove(Member member) { }\n"
                "    public int Count(Member member) { return 0; }\n}\n");
    repo_.build();
  }

  bool have_wordnet() const { return WordNet::open_system() != nullptr; }

  testing::InlineIndex repo_;
};

TEST_F(SynonymSearchTest, WordNetFindsAMethodNamedByASynonym) {
  if (!have_wordnet()) GTEST_SKIP() << "no WordNet database in /usr/share/wordnet (apt-get install wordnet-base)";
  SearchResponse r = repo_.search("which method quits a group", SearchType::kBm25, 3);
  EXPECT_EQ(r.debug["synonyms_available"], true);
  EXPECT_EQ(r.debug["synonyms"], nlohmann::json::parse(R"({"quits": ["leave"]})"));
  EXPECT_EQ(r.hits.at(0).id, "cs:Teams.GroupService.Leave(Group,User)");
  r = repo_.search("takes off a member", SearchType::kBm25, 1);
  EXPECT_EQ(r.debug["synonyms"], nlohmann::json::parse(R"({"takes off": ["leave", "remove"]})")) << "a collocation";
  EXPECT_EQ(r.hits.at(0).id, "cs:Teams.MemberList.Remove(Member)");
  EXPECT_EQ(repo_.ids("which method quits a group", SearchType::kHybrid, 1),
            (Ids{"cs:Teams.GroupService.Leave(Group,User)"}));
}

TEST_F(SynonymSearchTest, WithoutSynonymsTheWordsAloneDoNotFindIt) {
  SearchResponse r = repo_.search("which method quits a group", SearchType::kBm25, 3, testing::without_lexicon());
  EXPECT_EQ(r.debug["synonyms_available"], false);
  EXPECT_EQ(r.debug["synonyms"], nlohmann::json::object());
  EXPECT_NE(r.hits.at(0).id, "cs:Teams.GroupService.Leave(Group,User)");
  EXPECT_TRUE(repo_.ids("takes off a member", SearchType::kBm25, 1, testing::without_lexicon()) !=
              (Ids{"cs:Teams.MemberList.Remove(Member)"}));
}

TEST_F(SynonymSearchTest, AnIdentifierInTheQueryIsNotExpanded) {
  if (!have_wordnet()) GTEST_SKIP() << "no WordNet database in /usr/share/wordnet (apt-get install wordnet-base)";
  SearchResponse r = repo_.search("GroupService Quits", SearchType::kBm25, 3);
  EXPECT_EQ(r.debug["synonyms"], nlohmann::json::object());
  r = repo_.search("quits GroupService", SearchType::kBm25, 3);
  EXPECT_EQ(r.debug["synonyms"], nlohmann::json::parse(R"({"quits": ["leave"]})"));
}

TEST_F(SynonymSearchTest, ASynonymWeighsLessThanTheQuerysOwnWord) {
  // To this lexicon "count" is a synonym of "tallies": the node it finds scores kSynonymWeight of
  // what it scores when the query says "count" itself.
  SearchResponse synonym = repo_.search("tallies", SearchType::kBm25, 1,
                                        testing::with_lexicon({{"tallies", {"count"}}}));
  SearchResponse own = repo_.search("count", SearchType::kBm25, 1, testing::without_lexicon());
  ASSERT_EQ(synonym.hits.size(), 1u);
  ASSERT_EQ(own.hits.size(), 1u);
  EXPECT_EQ(synonym.hits[0].id, "cs:Teams.MemberList.Count(Member)");
  EXPECT_EQ(own.hits[0].id, synonym.hits[0].id);
  EXPECT_DOUBLE_EQ(synonym.hits[0].score, kSynonymWeight * own.hits[0].score);
}

TEST_F(SynonymSearchTest, OnlyTheBestSynonymOfAWordCounts) {
  // MemberList holds both synonyms of "tallies"; it scores for the better one, not for both.
  auto score_of = [](const SearchResponse& r, const std::string& id) {
    for (const auto& h : r.hits) {
      if (h.id == id) return h.score;
    }
    return -1.0;
  };
  const std::string list = "cs:Teams.MemberList";
  const double count = score_of(repo_.search("count", SearchType::kBm25, 10, testing::without_lexicon()), list);
  const double remove = score_of(repo_.search("remove", SearchType::kBm25, 10, testing::without_lexicon()), list);
  ASSERT_GT(count, 0);
  ASSERT_GT(remove, 0);
  SearchResponse r = repo_.search("tallies", SearchType::kBm25, 10,
                                  testing::with_lexicon({{"tallies", {"count", "remove"}}}));
  EXPECT_DOUBLE_EQ(score_of(r, list), kSynonymWeight * std::max(count, remove));
}

TEST_F(SynonymSearchTest, TheAndOperatorIsNotExpanded) {
  LocalBackend backend = LocalBackend(repo_.index_dir(), testing::with_lexicon({{"quits", {"leave"}}}));
  SearchRequest q;
  q.search_type = SearchType::kBm25;
  q.query = "quits group";
  q.top_k = 3;
  q.repository = "r";
  q.branch = "main";
  q.match_operator = MatchOperator::kAnd;
  SearchResponse r = backend.search(q);
  EXPECT_EQ(r.debug["synonyms"], nlohmann::json::object());
  EXPECT_TRUE(r.hits.empty());
}

}  // namespace
}  // namespace attractor::retrieval
