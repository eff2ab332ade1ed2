#include "attractor/tokens/token_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/token_test_support.h"

namespace attractor {
namespace {

/// A descriptor reading `text` (a temporary file, already unlinked).
int fd_of(const std::string& text) {
  char name[] = "/tmp/attractor-token-stream-XXXXXX";
  const int fd = ::mkstemp(name);
  ::unlink(name);
  EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

std::vector<std::string> texts() {
  const std::vector<std::string> alphabet = {"\n",
                                             "\n\n",
                                             " ",
                                             "  ",
                                             "\r\n",
                                             ",",
                                             ")",
                                             "'s",
                                             "/",
                                             ".",
                                             "a",
                                             "Bc",
                                             "xyz",
                                             "2024",
                                             "\xc3\xa9",
                                             "\xe3\x80\x80",
                                             "\xef\xbb\xbf",
                                             "\xff",
                                             "<|endoftext|>",
                                             "\x01",
                                             "**",
                                             ":",
                                             "\""};
  std::mt19937 rng(5);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::vector<std::string> out;
  for (int t = 0; t < 300; ++t) {
    std::string text;
    for (int i = 0; i < 200; ++i) text += alphabet[pick(rng)];
    out.push_back(text);
  }
  for (const auto& c : test::token_reference().at("cases")) out.push_back(test::reference_case_text(c));
  return out;
}

class TokenStreamTest : public ::testing::TestWithParam<std::string> {
 protected:
  const TokenCounter& counter() { return *token_counter_for(GetParam()); }
};

TEST_P(TokenStreamTest, TheStreamedCountAndIdsEqualTheWholeTextsForEveryWindow) {
  for (const AllowedSpecial& allowed : {AllowedSpecial::none(), AllowedSpecial::everything()}) {
    for (const std::string& text : texts()) {
      const std::size_t whole = counter().count(text, allowed);
      const std::vector<TokenId> ids = counter().encode(text, allowed);
      for (std::size_t window : {1u, 2u, 7u, 64u, 1u << 20}) {
        TokenStreamLimits limits;
        limits.window = window;
        std::vector<TokenId> streamed;
        const int fd = fd_of(text);
        const std::uint64_t n = count_tokens_streamed(
            fd, counter(), allowed, limits,
            [&](std::span<const TokenId> part) { streamed.insert(streamed.end(), part.begin(), part.end()); });
        ::close(fd);
        ASSERT_EQ(n, whole) << "window " << window << " of " << ::testing::PrintToString(text);
        ASSERT_EQ(streamed, ids) << "window " << window;
        const int again = fd_of(text);
        ASSERT_EQ(count_tokens_streamed(again, counter(), allowed, limits), whole);
        ::close(again);
      }
    }
  }
}

TEST_P(TokenStreamTest, AStretchWithoutACutPointAndAnOverlongInputAreRefused) {
  TokenStreamLimits limits;
  limits.window = 16;
  limits.max_uncut = 100;
  int fd = fd_of(std::string(90, 'a') + "\nB" + std::string(101, 'c'));
  EXPECT_THROW(
      {
        try {
          count_tokens_streamed(fd, counter(), {}, limits);
        } catch (const TokenStreamError& e) {
          EXPECT_STREQ(e.what(),
                       "more than 100 bytes from byte 91 on without a line break or punctuation before a "
                       "space, where the count could be split: too long to count in bounded memory");
          throw;
        }
      },
      TokenStreamError);
  ::close(fd);
  fd = fd_of(std::string(95, 'a') + "\nB");
  EXPECT_EQ(count_tokens_streamed(fd, counter(), {}, limits), counter().count(std::string(95, 'a') + "\nB"));
  ::close(fd);
  limits.max_bytes = 50;
  fd = fd_of(std::string(60, '\n'));
  EXPECT_THROW(count_tokens_streamed(fd, counter(), {}, limits), TokenStreamError);
  ::close(fd);
}

INSTANTIATE_TEST_SUITE_P(Encodings, TokenStreamTest, ::testing::Values("o200k_base", "cl100k_base"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace attractor
