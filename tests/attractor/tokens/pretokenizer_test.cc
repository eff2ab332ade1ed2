#include "attractor/tokens/pretokenizer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/token_test_support.h"

namespace attractor {
namespace {

std::vector<std::string> split(const Pretokenizer& p, std::string_view text) {
  std::vector<std::string> pieces;
  p.split(text, [&](std::string_view piece) { pieces.emplace_back(piece); });
  return pieces;
}

using Pieces = std::vector<std::string>;

const Pretokenizer& o200k() {
  static const Pretokenizer p(o200k_split_pattern());
  return p;
}

const Pretokenizer& cl100k() {
  static const Pretokenizer p(cl100k_split_pattern());
  return p;
}

TEST(Pretokenizer, CompilesWithJit) {
  EXPECT_TRUE(o200k().jit_enabled());
  EXPECT_TRUE(cl100k().jit_enabled());
  EXPECT_THROW(Pretokenizer("(unclosed"), std::invalid_argument);
}

TEST(Pretokenizer, O200kWordsAndContractions) {
  EXPECT_EQ(split(o200k(), "Hello world, I'm HERE'S"), (Pieces{"Hello", " world", ",", " I'm", " HERE'S"}));
  EXPECT_EQ(split(o200k(), "XMLHttpRequest camelCase"), (Pieces{"XMLHttp", "Request", " camel", "Case"}));
  EXPECT_EQ(split(o200k(), "they'LL it'Ll"), (Pieces{"they'LL", " it'Ll"}));
}

TEST(Pretokenizer, Cl100kWordsAndContractions) {
  EXPECT_EQ(split(cl100k(), "Hello world, I'm HERE'S"), (Pieces{"Hello", " world", ",", " I", "'m", " HERE", "'S"}));
  EXPECT_EQ(split(cl100k(), "XMLHttpRequest"), (Pieces{"XMLHttpRequest"}));
}

TEST(Pretokenizer, DigitsInGroupsOfThree) {
  EXPECT_EQ(split(o200k(), "1234567"), (Pieces{"123", "456", "7"}));
  EXPECT_EQ(split(cl100k(), "x 12345"), (Pieces{"x", " ", "123", "45"}));
}

TEST(Pretokenizer, PunctuationKeepsNewlinesAndSlashes) {
  EXPECT_EQ(split(o200k(), "});\n\nx"), (Pieces{"});\n\n", "x"}));
  EXPECT_EQ(split(o200k(), "a//\nb"), (Pieces{"a", "//\n", "b"}));
  EXPECT_EQ(split(cl100k(), "a//\nb"), (Pieces{"a", "//\n", "b"}));
  EXPECT_EQ(split(cl100k(), "a/x"), (Pieces{"a", "/x"}));
}

TEST(Pretokenizer, WhiteSpaceRuns) {
  // The last space of a run joins the next word.
  EXPECT_EQ(split(o200k(), "a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(split(o200k(), "a  \n  b"), (Pieces{"a", "  \n", " ", " b"}));
  EXPECT_EQ(split(cl100k(), "a  \n  b"), (Pieces{"a", "  \n", " ", " b"}));
  EXPECT_EQ(split(o200k(), "x   "), (Pieces{"x", "   "}));
}

TEST(Pretokenizer, EndAnchorIsTheEndOfTheTextOnly) {
  // JavaScript's `$` without the m flag; PCRE2's `$` would also match before the final newline.
  EXPECT_EQ(split(cl100k(), "a  \n"), (Pieces{"a", "  \n"}));
  EXPECT_EQ(split(cl100k(), "a  "), (Pieces{"a", "  "}));
  EXPECT_EQ(split(cl100k(), "a \t b"), (Pieces{"a", " \t", " b"}));
}

TEST(Pretokenizer, JavaScriptWhiteSpaceSet) {
  const std::string nbsp = test::utf8_of(0xA0), bom = test::utf8_of(0xFEFF), ideographic = test::utf8_of(0x3000);
  EXPECT_EQ(split(o200k(), "a" + nbsp + "b"), (Pieces{"a", nbsp + "b"}));
  EXPECT_EQ(split(o200k(), "a" + bom + bom + "b"), (Pieces{"a", bom, bom + "b"}));
  EXPECT_EQ(split(o200k(), "a" + ideographic + ideographic + "b"), (Pieces{"a", ideographic, ideographic + "b"}));
  // U+0085 and U+200B are not white space in JavaScript.
  const std::string nel = test::utf8_of(0x85), zwsp = test::utf8_of(0x200B);
  EXPECT_EQ(split(o200k(), "a " + nel + "b"), (Pieces{"a", " " + nel, "b"}));
  EXPECT_EQ(split(o200k(), "a" + zwsp + "b"), (Pieces{"a", zwsp + "b"}));
}

TEST(Pretokenizer, UnicodeLettersAndMarks) {
  EXPECT_EQ(split(o200k(), "caf\xC3\xA9 na\xC3\xAFve"), (Pieces{"caf\xC3\xA9", " na\xC3\xAFve"}));
  EXPECT_EQ(split(o200k(), "e\xCC\x81t\xC3\xA9"), (Pieces{"e\xCC\x81t\xC3\xA9"}));
  EXPECT_EQ(split(o200k(), "\xE4\xBD\xA0\xE5\xA5\xBD\xEF\xBC\x8C"),
            (Pieces{"\xE4\xBD\xA0\xE5\xA5\xBD", "\xEF\xBC\x8C"}));
}

TEST(Pretokenizer, CoversEveryByteOfLongInputs) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += i % 7 ? "word " : "\n\t  12345 !!\xC3\xA9 ";
  for (const Pretokenizer* p : {&o200k(), &cl100k()}) {
    std::string joined;
    p->split(text, [&](std::string_view piece) { joined += piece; });
    EXPECT_EQ(joined, text);
  }
  const std::string word(1 << 20, 'a');
  EXPECT_EQ(split(o200k(), word).size(), 1u);
  const std::string spaces(1 << 20, ' ');
  EXPECT_EQ(split(o200k(), spaces), (Pieces{spaces}));
}

}  // namespace
}  // namespace attractor
