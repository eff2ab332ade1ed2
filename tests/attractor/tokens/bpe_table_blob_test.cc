#include "attractor/tokens/bpe_table_blob.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "attractor/tokens/bpe.h"
#include "attractor/tokens/tiktoken_encoding.h"
#include "support/token_test_support.h"

namespace attractor {
namespace {

// Field offsets of the version-1 header (bpe_table_blob.cc); the tests poke them to corrupt a blob.
constexpr std::size_t kVersionAt = 8, kTokenCountAt = 12, kSlotCountAt = 20, kHashProbeAt = 24;
const std::string kSha(64, 'a');

using test::byte_table;

std::string small_blob() {
  const OwnedBpeTables tables(byte_table({"ab", "bc", "abc", "a long token of many bytes"}));
  return write_bpe_table_blob(tables.view(), kSha);
}

void put_u32(std::string& blob, std::size_t at, std::uint32_t value) { std::memcpy(blob.data() + at, &value, 4); }

/// The message view_bpe_table_blob throws for `blob`, or "" when it accepts it.
std::string refusal(std::string_view blob) {
  try {
    view_bpe_table_blob(blob, "test.bpe");
  } catch (const TokenDataError& e) {
    return e.what();
  }
  return "";
}

TEST(BpeTableBlob, RoundTripsTheTables) {
  const OwnedBpeTables owned(byte_table({"ab", "bc", "abc", "a long token of many bytes"}));
  const std::string blob = write_bpe_table_blob(owned.view(), kSha);
  const BpeTableBlob read = view_bpe_table_blob(blob, "test.bpe");
  EXPECT_EQ(read.source_sha256, kSha);
  const BpeTables& a = owned.view();
  const BpeTables& b = read.tables;
  ASSERT_EQ(b.size(), 260u);
  EXPECT_EQ(b.bytes, a.bytes);
  EXPECT_TRUE(std::equal(a.offsets.begin(), a.offsets.end(), b.offsets.begin(), b.offsets.end()));
  EXPECT_TRUE(std::equal(a.byte_rank.begin(), a.byte_rank.end(), b.byte_rank.begin(), b.byte_rank.end()));
  EXPECT_TRUE(
      std::equal(a.two_byte_rank.begin(), a.two_byte_rank.end(), b.two_byte_rank.begin(), b.two_byte_rank.end()));
  ASSERT_EQ(a.slots.size(), b.slots.size());
  EXPECT_EQ(std::memcmp(a.slots.data(), b.slots.data(), a.slots.size_bytes()), 0);
  // The views point into the blob: nothing was copied.
  EXPECT_GE(b.bytes.data(), blob.data());
  EXPECT_LE(b.bytes.data() + b.bytes.size(), blob.data() + blob.size());

  const BytePairEncoder bpe(read.tables);
  EXPECT_EQ(bpe.rank_of("abc"), 258u);
  EXPECT_EQ(bpe.rank_of("a long token of many bytes"), 259u);
  EXPECT_EQ(bpe.rank_of("a long token of many byteZ"), BytePairEncoder::kNoRank);
  std::vector<TokenId> out;
  bpe.encode_piece("abcb", out);
  EXPECT_EQ(out, (std::vector<TokenId>{258, 'b'}));
}

TEST(BpeTableBlob, RefusesTruncatedOrPaddedBlobs) {
  const std::string blob = small_blob();
  EXPECT_EQ(refusal(blob), "");
  EXPECT_EQ(refusal(blob.substr(0, 10)),
            "corrupt token tables test.bpe: 10 bytes, shorter than the 96-byte header (truncated)");
  EXPECT_EQ(refusal(""), "corrupt token tables test.bpe: 0 bytes, shorter than the 96-byte header (truncated)");
  EXPECT_EQ(refusal(blob.substr(0, blob.size() - 1)),
            fmt::format("corrupt token tables test.bpe: {} bytes where its header's counts need {} (truncated or "
                        "padded)",
                        blob.size() - 1, blob.size()));
  EXPECT_EQ(refusal(blob + "x"), fmt::format("corrupt token tables test.bpe: {} bytes where its header's counts "
                                             "need {} (truncated or padded)",
                                             blob.size() + 1, blob.size()));
}

TEST(BpeTableBlob, RefusesAForeignOrOutdatedHeader) {
  std::string blob = small_blob();
  blob[0] = 'X';
  EXPECT_EQ(refusal(blob), "corrupt token tables test.bpe: bad magic, not a token table blob");
  blob = small_blob();
  put_u32(blob, kVersionAt, 7);
  EXPECT_EQ(refusal(blob), "corrupt token tables test.bpe: format version 7 but this build reads version 1");
  blob = small_blob();
  blob[kHashProbeAt] ^= 1;
  EXPECT_EQ(refusal(blob), "corrupt token tables test.bpe: built with another hash function");
}

TEST(BpeTableBlob, RefusesInconsistentCounts) {
  std::string blob = small_blob();
  put_u32(blob, kSlotCountAt, 1000);
  EXPECT_EQ(refusal(blob), "corrupt token tables test.bpe: 260 tokens in 1000 slots");
  blob = small_blob();
  put_u32(blob, kSlotCountAt, 256);
  EXPECT_EQ(refusal(blob), "corrupt token tables test.bpe: 260 tokens in 256 slots");
  blob = small_blob();
  put_u32(blob, kTokenCountAt, 0);
  EXPECT_EQ(refusal(blob), "corrupt token tables test.bpe: 0 tokens in 512 slots");
  // One token fewer with the size to match: the offsets then end before the last token's bytes.
  blob = small_blob();
  put_u32(blob, kTokenCountAt, 259);
  blob.resize(blob.size() - 4);
  EXPECT_EQ(refusal(blob), "corrupt token tables test.bpe: token offsets do not span the bytes");
}

TEST(BpeTableBlob, RefusesMisalignedData) {
  const std::string blob = small_blob();
  std::string shifted = "x" + blob;
  EXPECT_EQ(refusal(std::string_view(shifted).substr(1)), "corrupt token tables test.bpe: data not 8-byte aligned");
}

TEST(BpeTableBlob, WriterRefusesMalformedInput) {
  const OwnedBpeTables tables(byte_table({}));
  EXPECT_THROW(write_bpe_table_blob(tables.view(), "short"), TokenDataError);
  BpeTables cut = tables.view();
  cut.two_byte_rank = cut.two_byte_rank.first(10);
  EXPECT_THROW(write_bpe_table_blob(cut, kSha), TokenDataError);
}

TEST(BpeTableBlob, EncodingRefusesTablesOfAnotherRankFile) {
  const EncodingSpec* spec = find_encoding_spec("o200k_base");
  ASSERT_NE(spec, nullptr);
  const std::string foreign = small_blob();
  try {
    TiktokenEncoding::load_tables(*spec, foreign, "built-in o200k_base");
    FAIL() << "tables of another rank file accepted";
  } catch (const TokenDataError& e) {
    EXPECT_EQ(std::string(e.what()), "corrupt token tables built-in o200k_base: built from a rank file with sha256 " +
                                         kSha + " but " + std::string(spec->file_sha256) + " is pinned");
  }
  const OwnedBpeTables tables(byte_table({}));
  const std::string few = write_bpe_table_blob(tables.view(), spec->file_sha256);
  try {
    TiktokenEncoding::load_tables(*spec, few, "built-in o200k_base");
    FAIL() << "tables with too few ranks accepted";
  } catch (const TokenDataError& e) {
    EXPECT_EQ(std::string(e.what()), "corrupt token tables built-in o200k_base: 256 ranks where 199998 were expected");
  }
}

}  // namespace
}  // namespace attractor
