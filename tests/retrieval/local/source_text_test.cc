#include "retrieval/local/source_text.h"

#include <gtest/gtest.h>

#include <string>

namespace attractor::retrieval {
namespace {

using namespace std::string_literals;

TEST(SourceTextTest, Utf8WithoutBomIsReadAsIs) {
  auto s = decode_source("class Grüße {}\n");
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf8);
  EXPECT_EQ(s.text, "class Grüße {}\n");
  EXPECT_EQ(s.warning, "");
}

TEST(SourceTextTest, Utf8BomIsDropped) {
  auto s = decode_source(
      "\xEF\xBB\xBF"
      "class A {}");
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf8Bom);
  EXPECT_EQ(s.text, "class A {}");
  EXPECT_EQ(s.warning, "");
}

TEST(SourceTextTest, Utf8BomWithInvalidByteKeepsTheRestAndWarns) {
  auto s = decode_source(
      "\xEF\xBB\xBF"
      "a\nb\xFF"
      "c");
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf8Bom);
  EXPECT_EQ(s.text,
            "a\nb\xEF\xBF\xBD"
            "c");
  EXPECT_EQ(s.warning, "invalid UTF-8 (byte 0xff at line 2, column 2) replaced with U+FFFD");
}

TEST(SourceTextTest, Utf16LeWithBom) {
  auto s = decode_source("\xFF\xFEG\0\xFC\0\xAC\x20\n\0"s);
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf16Le);
  EXPECT_EQ(s.text, "Gü€\n");
  EXPECT_EQ(s.warning, "");
}

TEST(SourceTextTest, Utf16BeWithBomAndSurrogatePair) {
  auto s = decode_source("\xFE\xFF\0A\xD8\x3D\xDE\x00\0B"s);
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf16Be);
  EXPECT_EQ(s.text,
            "A\xF0\x9F\x98\x80"
            "B");
  EXPECT_EQ(s.warning, "");
}

TEST(SourceTextTest, Utf16LoneSurrogateAndCutUnitBecomeReplacements) {
  auto s = decode_source("\xFF\xFE\x00\xD8x\0y"s);
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf16Le);
  EXPECT_EQ(s.text, "\xEF\xBF\xBDx\xEF\xBF\xBD");
  EXPECT_EQ(s.warning, "2 invalid UTF-16 LE code unit(s) replaced with U+FFFD");
}

TEST(SourceTextTest, Utf16LeWithoutBomByItsNulPattern) {
  auto s = decode_source("C\0R\0E\0A\0T\0E\0 \0\xE9\0"s);
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf16Le);
  EXPECT_EQ(s.text, "CREATE é");
  EXPECT_EQ(s.warning, "no byte-order mark; read as UTF-16 LE (NUL bytes in every other position)");
}

TEST(SourceTextTest, Utf16BeWithoutBomByItsNulPattern) {
  auto s = decode_source("\0G\0O"s);
  EXPECT_EQ(s.encoding, SourceEncoding::kUtf16Be);
  EXPECT_EQ(s.text, "GO");
  EXPECT_EQ(s.warning, "no byte-order mark; read as UTF-16 BE (NUL bytes in every other position)");
}

TEST(SourceTextTest, Utf32LeAndBeWithBom) {
  auto le = decode_source("\xFF\xFE\0\0x\0\0\0\x00\xF6\x01\0"s);
  EXPECT_EQ(le.encoding, SourceEncoding::kUtf32Le);
  EXPECT_EQ(le.text, "x\xF0\x9F\x98\x80");
  EXPECT_EQ(le.warning, "");
  auto be = decode_source("\0\0\xFE\xFF\0\0\0y\0\x11\0\0"s);
  EXPECT_EQ(be.encoding, SourceEncoding::kUtf32Be);
  EXPECT_EQ(be.text, "y\xEF\xBF\xBD");
  EXPECT_EQ(be.warning, "1 invalid UTF-32 BE code unit(s) replaced with U+FFFD");
}

TEST(SourceTextTest, Windows1252IncludingTheBytes80To9F) {
  auto s = decode_source(
      "// Gr\xFC\xDF"
      "e \x80 \x93q\x94 \x85\n\x8A\x9F");
  EXPECT_EQ(s.encoding, SourceEncoding::kWindows1252);
  EXPECT_EQ(s.text, "// Grüße € “q” …\nŠŸ");
  EXPECT_EQ(s.warning, "not UTF-8 (byte 0xfc at line 1, column 6); read as Windows-1252");
}

TEST(SourceTextTest, NulByteMakesBinary) {
  auto s = decode_source("MZ\x90\0\x03\0\0\0\x04\0\0\0\xFF\xFF"s);
  EXPECT_EQ(s.encoding, SourceEncoding::kBinary);
  EXPECT_EQ(s.text, "");
  EXPECT_EQ(s.warning, "binary file: NUL byte at line 1, column 4");
}

TEST(SourceTextTest, UndefinedWindows1252ByteOrControlByteMakesBinary) {
  auto undefined = decode_source("ab\n\xE9\x81");
  EXPECT_EQ(undefined.encoding, SourceEncoding::kBinary);
  EXPECT_EQ(undefined.warning, "binary file: byte 0x81 at line 2, column 2");
  auto control = decode_source("\x01\x02\xFF");
  EXPECT_EQ(control.encoding, SourceEncoding::kBinary);
  EXPECT_EQ(control.warning, "binary file: byte 0x01 at line 1, column 1");
}

TEST(SourceTextTest, EncodingNames) {
  EXPECT_EQ(encoding_name(SourceEncoding::kUtf8Bom), "UTF-8 with BOM");
  EXPECT_EQ(encoding_name(SourceEncoding::kUtf32Le), "UTF-32 LE");
  EXPECT_EQ(encoding_name(SourceEncoding::kWindows1252), "Windows-1252");
  EXPECT_EQ(encoding_name(SourceEncoding::kBinary), "binary");
}

}  // namespace
}  // namespace attractor::retrieval
