#include "support/token_test_support.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace attractor::test {

const nlohmann::json& token_reference() {
  static const nlohmann::json data = [] {
    std::ifstream in(std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/tokens/reference.json");
    if (!in) throw std::runtime_error("cannot open tests/data/tokens/reference.json");
    return nlohmann::json::parse(in);
  }();
  return data;
}

std::string utf8_of(char32_t cp) {
  std::string out;
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
  return out;
}

namespace {

/// Splits UTF-8 into its characters (input is valid).
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto lead = static_cast<unsigned char>(s[i]);
    std::size_t len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace

std::string generate_text(const nlohmann::json& spec) {
  if (spec.contains("unit")) {
    const std::string unit = spec.at("unit").get<std::string>();
    const std::size_t repeat = spec.at("repeat").get<std::size_t>();
    std::string out;
    out.reserve(unit.size() * repeat);
    for (std::size_t i = 0; i < repeat; ++i) out += unit;
    return out;
  }
  const std::vector<std::string> alphabet = characters(spec.at("alphabet").get<std::string>());
  const std::size_t length = spec.at("length").get<std::size_t>();
  std::uint32_t x = spec.at("seed").get<std::uint32_t>();
  if (x == 0) x = 1;
  std::string out;
  for (std::size_t i = 0; i < length; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    out += alphabet[x % alphabet.size()];
  }
  return out;
}

std::string reference_case_text(const nlohmann::json& c) {
  if (c.contains("text")) return c.at("text").get<std::string>();
  if (c.contains("bytes_hex")) {
    const std::string hex = c.at("bytes_hex").get<std::string>();
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
      out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return out;
  }
  return generate_text(c.at("generate"));
}

std::string join_ids(const std::vector<TokenId>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out.push_back(' ');
    out += std::to_string(ids[i]);
  }
  return out;
}

RankTable byte_table(const std::vector<std::string>& merges) {
  RankTable table;
  table.offsets.push_back(0);
  for (int b = 0; b < 256; ++b) {
    table.bytes.push_back(static_cast<char>(b));
    table.offsets.push_back(static_cast<std::uint32_t>(table.bytes.size()));
  }
  for (const auto& m : merges) {
    table.bytes += m;
    table.offsets.push_back(static_cast<std::uint32_t>(table.bytes.size()));
  }
  return table;
}

}  // namespace attractor::test
