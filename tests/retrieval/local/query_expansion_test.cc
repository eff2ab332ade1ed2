// The synonym expansion of bm25 queries with a fixed lexicon and a fixed vocabulary: which words
// are expanded (plain, kept, rare, collocations first; never identifiers), which synonyms are kept
// (in the index, capped, sorted) and the MATCH expression they make.
#include "retrieval/local/query_expansion.h"

#include <gtest/gtest.h>

#include "support/fake_lexicon.h"

namespace attractor::retrieval {
namespace {

using Words = std::vector<std::string>;
using Synonyms = std::map<std::string, Words>;

// The pretend index's size: a word is rare when no node holds it.
constexpr int64_t kNodes = 10;

// How many nodes hold each phrase in a pretend index; anything else is absent.
PhraseCount counts(std::map<std::string, int64_t> vocabulary) {
  return [vocabulary](const std::string& phrase) {
    auto it = vocabulary.find(phrase);
    return it == vocabulary.end() ? int64_t{0} : it->second;
  };
}

TEST(QueryExpansionTest, ExpandsPlainWordsWithTheSynonymsTheIndexHolds) {
  testing::FakeLexicon lexicon({{"quits", {"stop", "leave", "resign", "step_down"}}});
  QueryExpansion e = expand_query(analyze_query("which method quits a group"), lexicon,
                                  counts({{"leave", 3}, {"step down", 1}, {"group", 7}}), kNodes);
  EXPECT_EQ(e.synonyms, (Synonyms{{"quits", {"leave", "step_down"}}}));
  EXPECT_EQ(e.match_groups(), (std::vector<Words>{{"\"leave\"", "\"step down\""}}));
}

TEST(QueryExpansionTest, NeverExpandsAnIdentifierOrAStopWord) {
  testing::FakeLexicon lexicon({{"quits", {"leave"}}, {"which", {"leave"}}});
  QueryExpansion e = expand_query(analyze_query("GroupService Quits which"), lexicon, counts({{"leave", 3}}), kNodes);
  EXPECT_TRUE(e.synonyms.empty());
  EXPECT_TRUE(e.match_groups().empty());
  for (const auto& word : lexicon.lookups()) EXPECT_NE(word, "quits");
}

TEST(QueryExpansionTest, ACollocationTheLexiconKnowsStandsForBothWords) {
  testing::FakeLexicon lexicon({{"takes_off", {"remove"}}, {"takes", {"grabs"}}, {"off", {"away"}}});
  QueryExpansion e = expand_query(analyze_query("takes off a member"), lexicon,
                                  counts({{"remove", 2}, {"grabs", 2}, {"away", 2}}), kNodes);
  EXPECT_EQ(e.synonyms, (Synonyms{{"takes off", {"remove"}}}));
  EXPECT_EQ(lexicon.lookups(), (Words{"takes_off", "member"})) << "neither word of the pair is looked up alone";
}

TEST(QueryExpansionTest, AWordTheIndexAlreadyHoldsOftenIsNotExpanded) {
  testing::FakeLexicon lexicon({{"deletes", {"remove"}}, {"cipher", {"code"}}});
  QueryExpansion e = expand_query(analyze_query("deletes a cipher"), lexicon,
                                  counts({{"remove", 5}, {"code", 5}, {"cipher", 3}}), 3 * kRareWordShare);
  EXPECT_EQ(e.synonyms, (Synonyms{{"cipher", {"code"}}, {"deletes", {"remove"}}})) << "3 nodes in 3000 is rare";
  e = expand_query(analyze_query("deletes a cipher"), lexicon, counts({{"remove", 5}, {"code", 5}, {"cipher", 3}}),
                   3 * kRareWordShare - 1);
  EXPECT_EQ(e.synonyms, (Synonyms{{"deletes", {"remove"}}})) << "3 nodes in 2999 is not";
}

TEST(QueryExpansionTest, KeepsTheFirstFewSynonymsSortedAndDropsTheQuerysOwnWords) {
  testing::FakeLexicon lexicon({{"erases", {"wipe", "group", "delete", "remove", "clear", "purge", "drop", "zap"}}});
  std::map<std::string, int64_t> vocabulary;
  for (const auto& w : {"wipe", "group", "delete", "remove", "clear", "purge", "drop", "zap"}) vocabulary[w] = 1;
  QueryExpansion e = expand_query(analyze_query("erases a group"), lexicon, counts(vocabulary), kNodes);
  ASSERT_EQ(e.synonyms.at("erases").size(), kMaxSynonymsPerWord);
  EXPECT_EQ(e.synonyms.at("erases"), (Words{"clear", "delete", "purge", "remove", "wipe"}));
}

TEST(QueryExpansionTest, ALongQuestionIsNotExpanded) {
  testing::FakeLexicon lexicon({{"quits", Words{"leave"}}});
  const PhraseCount vocabulary = counts({{"leave", 1}});
  std::string query = "quits";
  for (size_t i = 1; i < kMaxWordsToExpand; ++i) query += " word" + std::string(1, static_cast<char>('a' + i));
  EXPECT_EQ(expand_query(analyze_query(query), lexicon, vocabulary, kNodes).synonyms, (Synonyms{{"quits", {"leave"}}}));
  EXPECT_TRUE(expand_query(analyze_query(query + " wordz"), lexicon, vocabulary, kNodes).synonyms.empty());
}

TEST(QueryExpansionTest, ShortWordsAndUnsafeSynonymsAreSkipped) {
  testing::FakeLexicon lexicon({{"id", {"identity"}}, {"quits", {"le\"ave", "go away", "leave"}}});
  QueryExpansion e = expand_query(analyze_query("quits id"), lexicon, counts({{"identity", 1}, {"leave", 1}}), kNodes);
  EXPECT_EQ(e.synonyms, (Synonyms{{"quits", {"leave"}}}));
}

}  // namespace
}  // namespace attractor::retrieval
