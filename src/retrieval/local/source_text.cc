#include "retrieval/local/source_text.h"

#include <array>
#include <optional>

#include <fmt/format.h>

#include "attractor/base/utf8.h"

namespace attractor::retrieval {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

/// "line L, column C" (1-based, columns in bytes) of byte `offset` of `bytes`.
std::string source_position(std::string_view bytes, std::size_t offset) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (bytes[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("line {}, column {}", line, offset - line_start + 1);
}

std::string bad_byte(std::string_view bytes, std::size_t offset) {
  return fmt::format("0x{:02x} at {}", static_cast<unsigned char>(bytes[offset]), source_position(bytes, offset));
}

/// Code unit `i` (of `width` bytes) of `body`, little- or big-endian.
char32_t code_unit(std::string_view body, std::size_t i, std::size_t width, bool little) {
  char32_t unit = 0;
  for (std::size_t k = 0; k < width; ++k) {
    auto byte = static_cast<unsigned char>(body[i * width + (little ? width - 1 - k : k)]);
    unit = (unit << 8) | byte;
  }
  return unit;
}

constexpr bool is_high_surrogate(char32_t u) { return u >= 0xD800 && u <= 0xDBFF; }
constexpr bool is_low_surrogate(char32_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

/// UTF-16 `body` as UTF-8; `bad` counts the units that became U+FFFD.
std::string utf16_to_utf8(std::string_view body, bool little, std::size_t& bad) {
  std::string out;
  out.reserve(body.size());
  const std::size_t units = body.size() / 2;
  for (std::size_t i = 0; i < units; ++i) {
    char32_t u = code_unit(body, i, 2, little);
    if (is_high_surrogate(u) && i + 1 < units && is_low_surrogate(code_unit(body, i + 1, 2, little))) {
      u = 0x10000 + ((u - 0xD800) << 10) + (code_unit(body, ++i, 2, little) - 0xDC00);
    } else if (is_high_surrogate(u) || is_low_surrogate(u)) {
      u = kReplacement;
      ++bad;
    }
    append_utf8(out, u);
  }
  if (body.size() % 2) {
    append_utf8(out, kReplacement);
    ++bad;
  }
  return out;
}

/// UTF-32 `body` as UTF-8; `bad` counts the units that became U+FFFD.
std::string utf32_to_utf8(std::string_view body, bool little, std::size_t& bad) {
  std::string out;
  out.reserve(body.size() / 2);
  for (std::size_t i = 0; i < body.size() / 4; ++i) {
    char32_t u = code_unit(body, i, 4, little);
    if (u > 0x10FFFF || is_high_surrogate(u) || is_low_surrogate(u)) {
      u = kReplacement;
      ++bad;
    }
    append_utf8(out, u);
  }
  if (body.size() % 4) {
    append_utf8(out, kReplacement);
    ++bad;
  }
  return out;
}

SourceText wide_text(std::string_view body, SourceEncoding encoding, std::string warning) {
  const bool little = encoding == SourceEncoding::kUtf16Le || encoding == SourceEncoding::kUtf32Le;
  const bool utf32 = encoding == SourceEncoding::kUtf32Le || encoding == SourceEncoding::kUtf32Be;
  std::size_t bad = 0;
  SourceText out{encoding, utf32 ? utf32_to_utf8(body, little, bad) : utf16_to_utf8(body, little, bad), {}};
  if (bad > 0) {
    warning += fmt::format("{}{} invalid {} code unit(s) replaced with U+FFFD", warning.empty() ? "" : "; ", bad,
                           encoding_name(encoding));
  }
  out.warning = std::move(warning);
  return out;
}

/// Windows-1252 0x80-0x9F; 0 where the code page defines no character.
constexpr std::array<char16_t, 32> kCp1252High = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                                  0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                                                  0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                                  0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

/// True for a byte no Windows-1252 text holds: a C0 control other than tab, LF, VT, FF, CR, SUB
/// and ESC, or a byte the code page leaves undefined.
bool is_binary_byte(unsigned char c) {
  if (c >= 0x80 && c <= 0x9F) return kCp1252High[c - 0x80] == 0;
  return c < 0x20 && !(c >= 0x09 && c <= 0x0D) && c != 0x1A && c != 0x1B;
}

SourceText windows1252_text(std::string_view bytes, std::size_t first_invalid) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 4);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (is_binary_byte(c)) {
      return {SourceEncoding::kBinary, {}, "binary file: byte " + bad_byte(bytes, i)};
    }
    append_utf8(out, c >= 0x80 && c <= 0x9F ? kCp1252High[c - 0x80] : c);
  }
  return {SourceEncoding::kWindows1252, std::move(out),
          fmt::format("not UTF-8 (byte {}); read as Windows-1252", bad_byte(bytes, first_invalid))};
}

/// UTF-16 LE or BE when NUL bytes fill one position of nearly every pair of the first 4 KiB and
/// (almost) never the other.
std::optional<SourceEncoding> utf16_by_nuls(std::string_view bytes) {
  const std::size_t pairs = std::min<std::size_t>(bytes.size(), 4096) / 2;
  std::size_t even = 0, odd = 0;
  for (std::size_t i = 0; i < pairs; ++i) {
    even += bytes[2 * i] == '\0';
    odd += bytes[2 * i + 1] == '\0';
  }
  if (pairs == 0) return std::nullopt;
  if (odd * 2 >= pairs && even * 20 <= odd) return SourceEncoding::kUtf16Le;
  if (even * 2 >= pairs && odd * 20 <= even) return SourceEncoding::kUtf16Be;
  return std::nullopt;
}

std::optional<SourceEncoding> encoding_by_bom(std::string_view bytes, std::size_t& bom_size) {
  struct Bom {
    std::string_view bytes;
    SourceEncoding encoding;
  };
  static constexpr std::array<Bom, 5> kBoms = {{{std::string_view("\xFF\xFE\0\0", 4), SourceEncoding::kUtf32Le},
                                                {std::string_view("\0\0\xFE\xFF", 4), SourceEncoding::kUtf32Be},
                                                {"\xEF\xBB\xBF", SourceEncoding::kUtf8Bom},
                                                {"\xFF\xFE", SourceEncoding::kUtf16Le},
                                                {"\xFE\xFF", SourceEncoding::kUtf16Be}}};
  for (const auto& bom : kBoms) {
    if (bytes.substr(0, bom.bytes.size()) == bom.bytes) {
      bom_size = bom.bytes.size();
      return bom.encoding;
    }
  }
  return std::nullopt;
}

SourceText utf8_text(std::string_view bytes, SourceEncoding encoding) {
  const std::size_t bad = find_invalid_utf8(bytes);
  if (bad == std::string_view::npos) return {encoding, std::string(bytes), {}};
  return {encoding, replace_invalid_utf8(bytes),
          fmt::format("invalid UTF-8 (byte {}) replaced with U+FFFD", bad_byte(bytes, bad))};
}

SourceText decode_without_bom(std::string_view bytes) {
  if (auto wide = utf16_by_nuls(bytes)) {
    return wide_text(
        bytes, *wide,
        fmt::format("no byte-order mark; read as {} (NUL bytes in every other position)", encoding_name(*wide)));
  }
  if (auto nul = bytes.find('\0'); nul != std::string_view::npos) {
    return {SourceEncoding::kBinary, {}, "binary file: NUL byte at " + source_position(bytes, nul)};
  }
  const std::size_t invalid = find_invalid_utf8(bytes);
  if (invalid == std::string_view::npos) return {SourceEncoding::kUtf8, std::string(bytes), {}};
  return windows1252_text(bytes, invalid);
}

}  // namespace

std::string_view encoding_name(SourceEncoding encoding) {
  switch (encoding) {
    case SourceEncoding::kUtf8: return "UTF-8";
    case SourceEncoding::kUtf8Bom: return "UTF-8 with BOM";
    case SourceEncoding::kUtf16Le: return "UTF-16 LE";
    case SourceEncoding::kUtf16Be: return "UTF-16 BE";
    case SourceEncoding::kUtf32Le: return "UTF-32 LE";
    case SourceEncoding::kUtf32Be: return "UTF-32 BE";
    case SourceEncoding::kWindows1252: return "Windows-1252";
    case SourceEncoding::kBinary: return "binary";
  }
  return "binary";
}

SourceText decode_source(std::string_view bytes) {
  std::size_t bom_size = 0;
  auto encoding = encoding_by_bom(bytes, bom_size);
  if (!encoding) return decode_without_bom(bytes);
  std::string_view body = bytes.substr(bom_size);
  if (*encoding == SourceEncoding::kUtf8Bom) return utf8_text(body, *encoding);
  return wide_text(body, *encoding, {});
}

}  // namespace attractor::retrieval
