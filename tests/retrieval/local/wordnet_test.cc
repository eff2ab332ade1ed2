// The WordNet reader on the real database of Debian's wordnet-base (.ci/deps.sh installs it):
// lemmas found by bisection, morphology from the exception lists and the detachment rules,
// collocations, the synonyms of a word, and a folder without the database.
#include "retrieval/local/wordnet.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

using Words = std::vector<std::string>;

class WordNetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = WordNet::open_system();
    if (!db_) GTEST_SKIP() << "no WordNet database in /usr/share/wordnet (apt-get install wordnet-base)";
  }

  bool has(const Words& words, const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
  }

  std::unique_ptr<WordNet> db_;
};

TEST_F(WordNetTest, FindsLemmasFirstLastAndAbsentByBisection) {
  EXPECT_EQ(db_->synset_offsets("quit", WordNetPos::kVerb),
            (std::vector<long>{2680814, 2382385, 2008414, 2227505, 1083062}));
  EXPECT_EQ(db_->synset_offsets("aah", WordNetPos::kVerb), (std::vector<long>{865794}));       // the first lemma
  EXPECT_EQ(db_->synset_offsets("zoom_in", WordNetPos::kVerb), (std::vector<long>{2153271}));  // the last
  EXPECT_EQ(db_->synset_offsets("zyrian", WordNetPos::kNoun), (std::vector<long>{6957042}));
  EXPECT_FALSE(db_->synset_offsets("take_off", WordNetPos::kVerb).empty());
  EXPECT_TRUE(db_->synset_offsets("quitx", WordNetPos::kVerb).empty());
  EXPECT_TRUE(db_->synset_offsets("", WordNetPos::kVerb).empty());
  EXPECT_TRUE(db_->synset_offsets("zzzzzz", WordNetPos::kNoun).empty());
}

TEST_F(WordNetTest, FindsBaseFormsByRulesAndExceptions) {
  EXPECT_EQ(db_->base_forms("quits", WordNetPos::kVerb), (Words{"quit"}));
  EXPECT_EQ(db_->base_forms("taking", WordNetPos::kVerb), (Words{"take"}));
  EXPECT_EQ(db_->base_forms("took", WordNetPos::kVerb), (Words{"take"}));
  EXPECT_EQ(db_->base_forms("removed", WordNetPos::kVerb), (Words{"remove"}));
  EXPECT_EQ(db_->base_forms("groups", WordNetPos::kNoun), (Words{"group"}));
  EXPECT_EQ(db_->base_forms("children", WordNetPos::kNoun), (Words{"child"}));
  EXPECT_TRUE(db_->base_forms("frobnicates", WordNetPos::kVerb).empty());
}

TEST_F(WordNetTest, InflectsTheFirstWordOfACollocation) {
  EXPECT_EQ(db_->base_forms("takes_off", WordNetPos::kVerb), (Words{"take_off"}));
  EXPECT_EQ(db_->base_forms("took_off", WordNetPos::kVerb), (Words{"take_off"}));
  EXPECT_EQ(db_->base_forms("gives_up", WordNetPos::kVerb), (Words{"give_up"}));
}

TEST_F(WordNetTest, SynonymsAreTheSynsetsLemmasAndAVerbsHypernyms) {
  const Words quits = db_->synonyms("quits");
  EXPECT_TRUE(has(quits, "leave")) << "hypernym of quit = depart";
  EXPECT_TRUE(has(quits, "resign"));
  EXPECT_TRUE(has(quits, "give_up"));
  EXPECT_FALSE(has(quits, "quit")) << "the word itself is not its synonym";
  EXPECT_TRUE(has(db_->synonyms("takes_off"), "remove")) << "hypernym of take off = take away";
  EXPECT_TRUE(has(db_->synonyms("erase"), "delete"));
  EXPECT_LE(db_->synonyms("take").size(), WordNet::kMaxSynonyms);
  EXPECT_TRUE(db_->synonyms("frobnicate").empty());
  EXPECT_EQ(db_->synonyms("quits"), quits) << "deterministic";
}

TEST(WordNetOpenTest, AFolderWithoutTheDatabaseOpensNothing) {
  testing::TempDir empty;
  EXPECT_EQ(WordNet::open(empty.path()), nullptr);
  EXPECT_EQ(WordNet::open(empty.path() / "missing"), nullptr);
}

}  // namespace
}  // namespace attractor::retrieval
