#include "attractor/tokens/bpe.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "attractor/tokens/tiktoken_encoding.h"
#include "attractor/tokens/tiktoken_file.h"
#include "attractor/tokens/token_data.h"
#include "support/token_test_support.h"

namespace attractor {
namespace {

using test::byte_table;

std::vector<TokenId> merge(const BytePairEncoder& bpe, std::string_view piece, int path) {
  std::vector<TokenId> out;
  if (path == 0) bpe.merge_piece_linear(piece, out);
  if (path == 1) bpe.merge_piece_heap(piece, out);
  if (path == 2) bpe.encode_piece(piece, out);
  return out;
}

TEST(BytePairEncoder, MergesLowestRankFirst) {
  // "ab"=256, "bc"=257, "abc"=258: in "abc" the pair "ab" wins, then "ab"+"c".
  BytePairEncoder bpe(byte_table({"ab", "bc", "abc"}));
  for (int path = 0; path < 3; ++path) {
    EXPECT_EQ(merge(bpe, "abc", path), (std::vector<TokenId>{258}));
    EXPECT_EQ(merge(bpe, "abcb", path), (std::vector<TokenId>{258, 'b'}));
  }
  // "bc" ranked before "ab": "a" + "bc".
  BytePairEncoder other(byte_table({"bc", "ab"}));
  for (int path = 0; path < 2; ++path) EXPECT_EQ(merge(other, "abc", path), (std::vector<TokenId>{'a', 256}));
  // A pair's rank is the rank of its joined bytes, whichever parts they came from.
  BytePairEncoder joined(byte_table({"bc", "ab", "abc"}));
  for (int path = 0; path < 2; ++path) EXPECT_EQ(merge(joined, "abc", path), (std::vector<TokenId>{258}));
}

TEST(BytePairEncoder, TiesGoToTheLeftmostPair) {
  BytePairEncoder bpe(byte_table({"aa", "aaaa"}));
  for (int path = 0; path < 2; ++path) {
    EXPECT_EQ(merge(bpe, "aaa", path), (std::vector<TokenId>{256, 'a'}));
    EXPECT_EQ(merge(bpe, "aaaaa", path), (std::vector<TokenId>{257, 'a'}));
    EXPECT_EQ(merge(bpe, "aaaaaaa", path), (std::vector<TokenId>{257, 256, 'a'}));
  }
}

TEST(BytePairEncoder, LooksUpRanks) {
  BytePairEncoder bpe(byte_table({"ab", "xyz"}));
  EXPECT_EQ(bpe.size(), 258u);
  EXPECT_EQ(bpe.rank_of("ab"), 256u);
  EXPECT_EQ(bpe.rank_of("xyz"), 257u);
  EXPECT_EQ(bpe.rank_of("xy"), BytePairEncoder::kNoRank);
  EXPECT_EQ(bpe.rank_of(""), BytePairEncoder::kNoRank);
  EXPECT_EQ(bpe.rank_of(std::string(1, '\xFF')), 255u);
  EXPECT_EQ(bpe.token_bytes(257), "xyz");
}

TEST(BytePairEncoder, RejectsInconsistentRanks) {
  EXPECT_THROW(BytePairEncoder(byte_table({"ab", "ab"})), TokenDataError);
  try {
    BytePairEncoder bpe(byte_table({"xy", "ab", "cd", "ab"}));
    FAIL() << "duplicate accepted";
  } catch (const TokenDataError& e) {
    EXPECT_STREQ(e.what(), "corrupt rank data: ranks 257 and 259 have the same bytes");
  }
  RankTable missing_byte = parse_tiktoken("YQ== 0\nYg== 1\n", "test");
  EXPECT_THROW(BytePairEncoder{std::move(missing_byte)}, TokenDataError);
}

TEST(BytePairEncoder, UsesOutsideTablesOnlyWhenTheirSizesFit) {
  const OwnedBpeTables owned(byte_table({"ab"}));
  const BytePairEncoder viewing(owned.view());
  EXPECT_EQ(viewing.rank_of("ab"), 256u);
  EXPECT_EQ(viewing.tables().slots.data(), owned.view().slots.data());
  BpeTables full = owned.view();
  full.slots = full.slots.first(256);  // no empty slot left for 257 tokens
  EXPECT_THROW(BytePairEncoder{full}, TokenDataError);
  BpeTables no_pairs = owned.view();
  no_pairs.two_byte_rank = {};
  EXPECT_THROW(BytePairEncoder{no_pairs}, TokenDataError);
}

TEST(BytePairEncoder, LinearAndHeapPathsAgreeOnRealRanks) {
  const auto spec = find_encoding_spec("o200k_base");
  BytePairEncoder bpe(load_tiktoken_file(find_token_data_file(spec->file_name)));
  const std::vector<std::string> alphabets = {"ab", "abcdefghijklmnopqrstuvwxyz", "etaoin shrdlu", "0123456789",
                                              "\xC3\xA9\xE4\xBD\xA0\xF0\x9F\x98\x80 a"};
  std::uint32_t x = 2463534242u;
  int compared = 0;
  for (const auto& alphabet : alphabets) {
    for (std::size_t length : {2u, 3u, 5u, 8u, 13u, 31u, 64u, 65u, 200u, 1000u}) {
      for (int trial = 0; trial < 20; ++trial) {
        std::string piece;
        for (std::size_t i = 0; i < length; ++i) {
          x ^= x << 13;
          x ^= x >> 17;
          x ^= x << 5;
          piece.push_back(alphabet[x % alphabet.size()]);
        }
        std::vector<TokenId> heap = merge(bpe, piece, 1);
        std::string joined;
        for (TokenId id : heap) joined += bpe.token_bytes(id);
        ASSERT_EQ(joined, piece);
        if (length <= BytePairEncoder::kLinearScanLimit) {
          ASSERT_EQ(merge(bpe, piece, 0), heap) << piece;
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 500);
}

TEST(PieceCache, StoresAndReplacesOnCollision) {
  PieceCache single(1);
  const std::vector<TokenId> a = {1, 2}, b = {3};
  single.insert("alpha", a);
  ASSERT_NE(single.find("alpha"), nullptr);
  EXPECT_EQ(*single.find("alpha"), a);
  EXPECT_EQ(single.find("beta"), nullptr);
  single.insert("beta", b);
  EXPECT_EQ(single.size(), 1u);
  EXPECT_EQ(single.find("alpha"), nullptr);
  EXPECT_EQ(*single.find("beta"), b);
}

TEST(PieceCache, NeverReturnsAnotherPiecesTokens) {
  PieceCache cache(64);
  for (TokenId i = 0; i < 500; ++i) cache.insert("piece" + std::to_string(i), std::vector<TokenId>{i, i + 1});
  int found = 0;
  for (TokenId i = 0; i < 500; ++i) {
    if (const auto* tokens = cache.find("piece" + std::to_string(i))) {
      EXPECT_EQ(*tokens, (std::vector<TokenId>{i, i + 1}));
      ++found;
    }
  }
  EXPECT_GT(found, 0);
  EXPECT_LE(found, 64);
  EXPECT_LE(cache.size(), 64u);
}

TEST(PieceCache, GrowsFromASmallTableUpToItsCapacity) {
  PieceCache cache(4096);
  EXPECT_EQ(cache.find("piece0"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
  for (TokenId i = 0; i < 20000; ++i) {
    const std::string piece = "piece" + std::to_string(i);
    cache.insert(piece, std::vector<TokenId>{i});
    ASSERT_NE(cache.find(piece), nullptr) << i;
    EXPECT_EQ(cache.find(piece)->front(), i);
  }
  EXPECT_GT(cache.size(), 1024u);
  EXPECT_LE(cache.size(), 4096u);
  int found = 0;
  for (TokenId i = 0; i < 20000; ++i) {
    if (const auto* tokens = cache.find("piece" + std::to_string(i))) {
      EXPECT_EQ(*tokens, std::vector<TokenId>{i});
      ++found;
    }
  }
  EXPECT_EQ(static_cast<std::size_t>(found), cache.size());
}

}  // namespace
}  // namespace attractor
