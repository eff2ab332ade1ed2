#include "attractor/tokens/chunked_counter.h"

#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/token_test_support.h"

namespace attractor {
namespace {

/// Texts built from the characters the split patterns treat differently: line breaks, spaces
/// (ASCII and not), punctuation, contractions, digits, letters of several scripts, a special-token
/// string and an invalid byte.
std::vector<std::string> tricky_texts(unsigned seed, std::size_t how_many) {
  const std::vector<std::string> alphabet = {"\n",
                                             "\n\n",
                                             " ",
                                             "  ",
                                             "\t",
                                             "\r\n",
                                             ",",
                                             ")",
                                             "(",
                                             "'",
                                             "'s",
                                             "'ll",
                                             "/",
                                             ".",
                                             "-",
                                             "a",
                                             "Bc",
                                             "xyz",
                                             "1",
                                             "2024",
                                             "\xc3\xa9",
                                             "\xc2\xa0",
                                             "\xe3\x80\x80",
                                             "\xef\xbb\xbf",
                                             "\xe4\xb8\xad\xe6\x96\x87",
                                             "\xff",
                                             "<|endoftext|>",
                                             "\v",
                                             "\x01",
                                             "#",
                                             "**",
                                             ":",
                                             "\""};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(1, 40);
  std::vector<std::string> texts;
  for (std::size_t t = 0; t < how_many; ++t) {
    std::string text;
    for (int i = length(rng); i > 0; --i) text += alphabet[pick(rng)];
    texts.push_back(text);
  }
  return texts;
}

class ChunkedCounterTest : public ::testing::TestWithParam<std::string> {
 protected:
  const TokenCounter& counter() { return *token_counter_for(GetParam()); }
};

TEST_P(ChunkedCounterTest, EveryCutPointSplitsTheCountExactly) {
  std::vector<std::string> texts = tricky_texts(7, 3000);
  for (const auto& c : test::token_reference().at("cases")) texts.push_back(test::reference_case_text(c));
  std::size_t cuts_checked = 0;
  for (const std::string& text : texts) {
    const std::size_t whole = counter().count(text);
    for (std::size_t cut : token_cut_points(text)) {
      ASSERT_EQ(counter().count(text.substr(0, cut)) + counter().count(text.substr(cut)), whole)
          << "cut at " << cut << " of " << ::testing::PrintToString(text);
      ++cuts_checked;
    }
  }
  EXPECT_GT(cuts_checked, 3000u);
}

TEST_P(ChunkedCounterTest, CountsEqualTheCounterOnEveryText) {
  ChunkedCounter chunked;
  std::vector<std::string> texts = tricky_texts(11, 2000);
  for (const auto& c : test::token_reference().at("cases")) texts.push_back(test::reference_case_text(c));
  for (const std::string& text : texts) {
    ASSERT_EQ(chunked.count(counter(), text), counter().count(text)) << ::testing::PrintToString(text);
    ASSERT_EQ(chunked.count(counter(), text), counter().count(text))
        << "second time " << ::testing::PrintToString(text);
  }
}

TEST_P(ChunkedCounterTest, ShiftingListsStayExactWithATinyCache) {
  ChunkedCounter chunked(3);
  ChunkedCounter roomy;
  for (int first = 0; first < 300; first += 7) {
    std::string text = fmt::format("## State\n\n- Completed: ({} earlier omitted)", first);
    for (int i = first; i < first + 200; ++i) text += fmt::format(", n{} (success)", i);
    text += "\n- Context:\n  - last: \"done\"\n";
    const std::size_t expected = counter().count(text);
    EXPECT_EQ(chunked.count(counter(), text), expected);
    EXPECT_EQ(roomy.count(counter(), text), expected);
  }
}

TEST(TokenCutPoints, AreAfterLineBreaksAndPunctuationBeforeSpaces) {
  EXPECT_EQ(token_cut_points("a\nb"), (std::vector<std::size_t>{2}));
  EXPECT_EQ(token_cut_points("a), b"), (std::vector<std::size_t>{3}));
  EXPECT_TRUE(token_cut_points("a\n b").empty());  // the space may join the line break's piece
  EXPECT_TRUE(token_cut_points("a\n\nb").size() == 1);
  EXPECT_TRUE(token_cut_points("ab cd").empty());        // a letter before a space may not end a piece
  EXPECT_TRUE(token_cut_points("a\n\xc3\xa9").empty());  // only ASCII after a line break
  EXPECT_TRUE(token_cut_points(")\n/").empty());         // o200k: ")\n/" is one piece
}

TEST(ChunkedCounter, ForgetsCountsOfAnotherEncoding) {
  ChunkedCounter chunked;
  const std::string text =
      "Le gar\xc3\xa7on mange une p\xc3\xaa"
      "che tr\xc3\xa8s m\xc3\xbbre \xc3\xa0 c\xc3\xb4t\xc3\xa9 de "
      "l\xe2\x80\x99h\xc3\xb4pital.\n";  // 15 tokens in o200k_base, 21 in cl100k_base
  for (const char* encoding : {"o200k_base", "cl100k_base", "o200k_base"}) {
    const TokenCounter& counter = *token_counter_for(encoding);
    EXPECT_EQ(chunked.count(counter, text), counter.count(text)) << encoding;
  }
  EXPECT_NE(token_counter_for("o200k_base")->count(text), token_counter_for("cl100k_base")->count(text));
}

INSTANTIATE_TEST_SUITE_P(Encodings, ChunkedCounterTest, ::testing::Values("o200k_base", "cl100k_base"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace attractor
