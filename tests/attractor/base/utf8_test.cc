#include "attractor/base/utf8.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(Utf8, ValidText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii text that is longer than eight bytes"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x98\x80"));
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
  EXPECT_TRUE(is_valid_utf8("\xED\x9F\xBF"));      // U+D7FF
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));
}

TEST(Utf8, InvalidText) {
  EXPECT_FALSE(is_valid_utf8("\x80"));
  EXPECT_FALSE(is_valid_utf8("abc\xC3"));
  EXPECT_FALSE(is_valid_utf8("\xC0\x80"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("12345678\xFF"));
}

TEST(Utf8, ValidTextIsUnchanged) {
  const std::string text = "h\xC3\xA9llo \xF0\x9F\x98\x80";
  EXPECT_EQ(replace_invalid_utf8(text), text);
}

TEST(Utf8, EachMaximalInvalidSubsequenceBecomesOneReplacement) {
  // The WHATWG decoder: a truncated sequence is one U+FFFD, each bad byte that cannot start one is
  // another.
  EXPECT_EQ(replace_invalid_utf8("a\x80"
                                 "b"),
            "a" + kReplacement + "b");
  EXPECT_EQ(replace_invalid_utf8("\x80\x81"), kReplacement + kReplacement);
  EXPECT_EQ(replace_invalid_utf8("a\xE2\x82"
                                 "b"),
            "a" + kReplacement + "b");
  EXPECT_EQ(replace_invalid_utf8("a\xF0\x9F\x98 b"), "a" + kReplacement + " b");
  EXPECT_EQ(replace_invalid_utf8("a\xC0\x80"
                                 "b"),
            "a" + kReplacement + kReplacement + "b");
  EXPECT_EQ(replace_invalid_utf8("\xE0\x80\xAF"), kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(replace_invalid_utf8("\xED\xA0\x80"), kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(replace_invalid_utf8("\xF4\x90\x80\x80"), kReplacement + kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(replace_invalid_utf8("end\xC3"), "end" + kReplacement);
  EXPECT_EQ(replace_invalid_utf8("end\xF0\x9F\x98"), "end" + kReplacement);
  EXPECT_EQ(replace_invalid_utf8("\xE2\x82\xE2\x82\xAC"), kReplacement + "\xE2\x82\xAC");
}

}  // namespace
}  // namespace attractor
