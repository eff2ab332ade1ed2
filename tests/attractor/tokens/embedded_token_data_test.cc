#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/tokens/bpe_table_blob.h"
#include "attractor/tokens/tiktoken_encoding.h"
#include "attractor/tokens/tiktoken_file.h"
#include "attractor/tokens/token_data.h"
#include "support/token_test_support.h"

namespace attractor {
namespace {

class EmbeddedTablesTest : public ::testing::TestWithParam<std::string> {
 protected:
  const EncodingSpec& spec() const { return *find_encoding_spec(GetParam()); }
  /// The encoding built the slow way, from the rank file copied beside the test binary.
  std::unique_ptr<TiktokenEncoding> from_rank_file() const {
    return TiktokenEncoding::load(spec(), find_token_data_file(spec().file_name));
  }
};

TEST_P(EmbeddedTablesTest, TheBinaryCarriesTablesBuiltFromThePinnedFile) {
  const std::optional<std::string_view> blob = embedded_token_tables(GetParam());
  ASSERT_TRUE(blob.has_value()) << "the build did not embed the tables of " << GetParam();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(blob->data()) % 64, 0u);
  const BpeTableBlob tables = view_bpe_table_blob(*blob, "built-in");
  EXPECT_EQ(tables.source_sha256, spec().file_sha256);
  EXPECT_EQ(tables.tables.size(), spec().rank_count);
}

TEST_P(EmbeddedTablesTest, TheSharedCounterUsesTheEmbeddedTablesInPlace) {
  const std::string_view blob = embedded_token_tables(GetParam()).value();
  auto counter = std::dynamic_pointer_cast<const TiktokenEncoding>(token_counter_for(GetParam()));
  ASSERT_NE(counter, nullptr);
  const BpeTables& tables = counter->bpe().tables();
  for (const void* p : {static_cast<const void*>(tables.bytes.data()), static_cast<const void*>(tables.slots.data()),
                        static_cast<const void*>(tables.offsets.data())}) {
    EXPECT_GE(p, static_cast<const void*>(blob.data()));
    EXPECT_LT(p, static_cast<const void*>(blob.data() + blob.size()));
  }
}

TEST_P(EmbeddedTablesTest, EveryRankEqualsTheRankFiles) {
  const auto built = from_rank_file();
  const auto embedded = TiktokenEncoding::load_tables(spec(), embedded_token_tables(GetParam()).value(), "built-in");
  const BytePairEncoder& a = built->bpe();
  const BytePairEncoder& b = embedded->bpe();
  ASSERT_EQ(a.size(), b.size());
  for (TokenId rank = 0; rank < a.size(); ++rank) {
    ASSERT_EQ(a.token_bytes(rank), b.token_bytes(rank)) << "rank " << rank;
    ASSERT_EQ(b.rank_of(a.token_bytes(rank)), rank) << "rank " << rank;
  }
  const BpeTables& ta = a.tables();
  const BpeTables& tb = b.tables();
  EXPECT_TRUE(std::equal(ta.byte_rank.begin(), ta.byte_rank.end(), tb.byte_rank.begin(), tb.byte_rank.end()));
  EXPECT_TRUE(
      std::equal(ta.two_byte_rank.begin(), ta.two_byte_rank.end(), tb.two_byte_rank.begin(), tb.two_byte_rank.end()));
  ASSERT_EQ(ta.slots.size(), tb.slots.size());
  EXPECT_EQ(std::memcmp(ta.slots.data(), tb.slots.data(), ta.slots.size_bytes()), 0);
}

TEST_P(EmbeddedTablesTest, EncodesLikeTheRankFile) {
  const auto built = from_rank_file();
  const auto embedded = token_counter_for(GetParam());
  std::vector<std::string> texts = {"",
                                    "hello world",
                                    "The quick brown fox jumps over the lazy dog.",
                                    "int main() { return 0; }  // comment\n\n\tindented",
                                    "日本語のテキストと emoji 😀😀 and العربية",
                                    std::string(5000, 'a'),
                                    "<|endoftext|> is plain text here"};
  for (const auto& c : test::token_reference().at("cases")) texts.push_back(test::reference_case_text(c));
  for (const auto& text : texts) {
    ASSERT_EQ(embedded->encode(text), built->encode(text)) << text.substr(0, 80);
    ASSERT_EQ(embedded->count(text), built->count(text)) << text.substr(0, 80);
  }
  EXPECT_EQ(embedded->encode("<|endoftext|>", AllowedSpecial::everything()),
            built->encode("<|endoftext|>", AllowedSpecial::everything()));
}

INSTANTIATE_TEST_SUITE_P(Encodings, EmbeddedTablesTest, ::testing::Values("o200k_base", "cl100k_base"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace attractor
