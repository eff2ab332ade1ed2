#include "attractor/tokens/tiktoken_file.h"

#include <array>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "attractor/base/sha256.h"

namespace attractor {

namespace {

constexpr std::array<std::int8_t, 256> make_base64_table() {
  std::array<std::int8_t, 256> table{};
  for (auto& v : table) v = -1;
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
  return table;
}

constexpr auto kBase64 = make_base64_table();

}  // namespace

bool decode_base64(std::string_view text, std::string& out) {
  if (text.size() % 4 != 0) return false;
  std::size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++padding;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t group = 0;
    const bool last = i + 4 == text.size();
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      int v = 0;
      if (c == '=') {
        if (!last || k < 4 - padding) return false;
      } else {
        v = kBase64[static_cast<unsigned char>(c)];
        if (v < 0) return false;
      }
      group = (group << 6) | static_cast<std::uint32_t>(v);
    }
    out.push_back(static_cast<char>(group >> 16));
    if (!last || padding < 2) out.push_back(static_cast<char>((group >> 8) & 0xFF));
    if (!last || padding < 1) out.push_back(static_cast<char>(group & 0xFF));
  }
  return true;
}

RankTable parse_tiktoken(std::string_view text, std::string_view origin) {
  RankTable table;
  table.bytes.reserve(text.size());
  table.offsets.reserve(text.size() / 12 + 2);
  table.offsets.push_back(0);
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      if (pos >= text.size()) break;
      throw TokenDataError(fmt::format("{}:{}: corrupt rank file: empty line", origin, line_no));
    }
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) {
      throw TokenDataError(fmt::format("{}:{}: corrupt rank file: expected '<base64> <rank>'", origin, line_no));
    }
    std::string_view encoded = line.substr(0, space);
    std::string_view rank_text = line.substr(space + 1);
    std::uint64_t rank = 0;
    auto [ptr, ec] = std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
    if (ec != std::errc() || ptr != rank_text.data() + rank_text.size() || rank_text.empty()) {
      throw TokenDataError(fmt::format("{}:{}: corrupt rank file: bad rank '{}'", origin, line_no, rank_text));
    }
    if (rank != table.size()) {
      throw TokenDataError(
          fmt::format("{}:{}: corrupt rank file: rank {} where {} was expected", origin, line_no, rank, table.size()));
    }
    const std::size_t before = table.bytes.size();
    if (!decode_base64(encoded, table.bytes) || table.bytes.size() == before) {
      throw TokenDataError(fmt::format("{}:{}: corrupt rank file: invalid base64 '{}'", origin, line_no, encoded));
    }
    if (table.bytes.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw TokenDataError(fmt::format("{}: rank file too large", origin));
    }
    table.offsets.push_back(static_cast<std::uint32_t>(table.bytes.size()));
  }
  if (table.size() == 0) throw TokenDataError(fmt::format("{}: corrupt rank file: no tokens", origin));
  return table;
}

RankTable load_tiktoken_file(const std::filesystem::path& path, std::string_view expected_sha256) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TokenDataError(fmt::format("cannot read token rank file {}", path.string()));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw TokenDataError(fmt::format("error reading token rank file {}", path.string()));
  const std::string text = std::move(buffer).str();
  if (!expected_sha256.empty()) {
    const std::string actual = sha256_hex(text);
    if (actual != expected_sha256) {
      throw TokenDataError(
          fmt::format("corrupt token rank file {}: sha256 {} but expected {}", path.string(), actual, expected_sha256));
    }
  }
  return parse_tiktoken(text, path.string());
}

}  // namespace attractor
