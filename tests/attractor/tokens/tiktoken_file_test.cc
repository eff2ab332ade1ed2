#include "attractor/tokens/tiktoken_file.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "attractor/base/sha256.h"
#include "attractor/tokens/tiktoken_encoding.h"
#include "attractor/tokens/token_data.h"

namespace attractor {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_tiktoken(text, "ranks.tiktoken");
  } catch (const TokenDataError& e) {
    return e.what();
  }
  return "";
}

TEST(Base64, DecodesWithAndWithoutPadding) {
  std::string out;
  ASSERT_TRUE(decode_base64("IQ==", out));
  EXPECT_EQ(out, "!");
  out.clear();
  ASSERT_TRUE(decode_base64("IGNvY29z", out));
  EXPECT_EQ(out, " cocos");
  out.clear();
  ASSERT_TRUE(decode_base64("YWI=", out));
  EXPECT_EQ(out, "ab");
  out.clear();
  ASSERT_TRUE(decode_base64("/+8A", out));
  EXPECT_EQ(out, std::string("\xFF\xEF\x00", 3));
}

TEST(Base64, RejectsMalformedInput) {
  std::string out;
  EXPECT_FALSE(decode_base64("abc", out));
  EXPECT_FALSE(decode_base64("ab!c", out));
  EXPECT_FALSE(decode_base64("a===", out));
  EXPECT_FALSE(decode_base64("ab=cdefg", out));
  EXPECT_FALSE(decode_base64("YQ==YQ==", out));
}

TEST(TiktokenFile, ParsesRankLines) {
  const RankTable table = parse_tiktoken("YQ== 0\nYg== 1\nYWI= 2\n", "test");
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table.token(0), "a");
  EXPECT_EQ(table.token(1), "b");
  EXPECT_EQ(table.token(2), "ab");
  EXPECT_EQ(parse_tiktoken("YQ== 0\r\nYg== 1", "test").size(), 2u);
}

TEST(TiktokenFile, ReportsCorruptLinesWithOriginAndLine) {
  EXPECT_EQ(error_of("YQ== 0\nYg== 2\n"), "ranks.tiktoken:2: corrupt rank file: rank 2 where 1 was expected");
  EXPECT_EQ(error_of("YQ== 0\nYg==1\n"), "ranks.tiktoken:2: corrupt rank file: expected '<base64> <rank>'");
  EXPECT_EQ(error_of("YQ== x\n"), "ranks.tiktoken:1: corrupt rank file: bad rank 'x'");
  EXPECT_EQ(error_of("Y!== 0\n"), "ranks.tiktoken:1: corrupt rank file: invalid base64 'Y!=='");
  EXPECT_EQ(error_of("YQ== 0\n\nYg== 1\n"), "ranks.tiktoken:2: corrupt rank file: empty line");
  EXPECT_EQ(error_of(""), "ranks.tiktoken: corrupt rank file: no tokens");
}

TEST(TiktokenFile, MissingFileNamesThePath) {
  try {
    load_tiktoken_file("/nonexistent/dir/o200k_base.tiktoken");
    FAIL();
  } catch (const TokenDataError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read token rank file /nonexistent/dir/o200k_base.tiktoken");
  }
}

TEST(TiktokenFile, ChecksumMismatchIsCorrupt) {
  const auto path = std::filesystem::temp_directory_path() / "attractor_tokens_test.tiktoken";
  {
    std::ofstream out(path);
    out << "YQ== 0\n";
  }
  EXPECT_EQ(load_tiktoken_file(path).size(), 1u);
  try {
    load_tiktoken_file(path, "0000");
    FAIL();
  } catch (const TokenDataError& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt token rank file " + path.string() + ": sha256 "), std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST(TiktokenFile, ShippedFilesAreFoundBesideTheExecutable) {
  for (const char* name : {"o200k_base.tiktoken", "cl100k_base.tiktoken"}) {
    const auto path = find_token_data_file(name);
    EXPECT_EQ(path.filename(), name);
    EXPECT_EQ(path.parent_path(), executable_directory() / "data");
  }
  const RankTable o200k = load_tiktoken_file(find_token_data_file("o200k_base.tiktoken"));
  EXPECT_EQ(o200k.size(), 199998u);
  EXPECT_EQ(o200k.token(0), "!");
  EXPECT_EQ(o200k.token(199997), " cocos");
}

TEST(TokenData, CorruptRankTextIsRefusedByItsChecksum) {
  const EncodingSpec* spec = find_encoding_spec("o200k_base");
  ASSERT_NE(spec, nullptr);
  try {
    TiktokenEncoding::load_text(*spec, "IQ== 0\n", "o200k_base.tiktoken in memory");
    FAIL();
  } catch (const TokenDataError& e) {
    EXPECT_EQ(std::string(e.what()), "corrupt token rank data o200k_base.tiktoken in memory: sha256 " +
                                         sha256_hex("IQ== 0\n") + " but expected " + std::string(spec->file_sha256));
  }
}

TEST(TokenData, MissingFileListsTheSearchedPlaces) {
  try {
    find_token_data_file("no_such_encoding.tiktoken");
    FAIL();
  } catch (const TokenDataError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("token rank file no_such_encoding.tiktoken not found"), std::string::npos);
    EXPECT_NE(message.find((executable_directory() / "data" / "no_such_encoding.tiktoken").string()),
              std::string::npos);
    EXPECT_NE(message.find("share/attractor/no_such_encoding.tiktoken"), std::string::npos);
  }
}

}  // namespace
}  // namespace attractor
