#include "attractor/base/utf8.h"

#include <cstdint>
#include <cstring>

namespace attractor {

namespace {

/// Length of the well-formed sequence starting at `i`, or 0 when it is invalid; `valid_prefix`
/// receives how many bytes of an invalid sequence still belonged to a possible character.
std::size_t sequence_length(const unsigned char* s, std::size_t n, std::size_t i, std::size_t& valid_prefix) {
  const unsigned char lead = s[i];
  std::size_t need = 0;
  unsigned char lower = 0x80, upper = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0) lower = 0xA0;
    if (lead == 0xED) upper = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0) lower = 0x90;
    if (lead == 0xF4) upper = 0x8F;
  } else {
    valid_prefix = 1;
    return 0;
  }
  std::size_t j = i + 1;
  for (std::size_t k = 0; k < need; ++k, ++j) {
    if (j >= n || s[j] < lower || s[j] > upper) {
      valid_prefix = j - i;
      return 0;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  return need + 1;
}

bool all_ascii_8(const unsigned char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, 8);
  return (word & 0x8080808080808080ULL) == 0;
}

}  // namespace

std::size_t find_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && all_ascii_8(s + i)) {
      i += 8;
      continue;
    }
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    std::size_t prefix = 0;
    std::size_t len = sequence_length(s, n, i, prefix);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool is_valid_utf8(std::string_view text) { return find_invalid_utf8(text) == std::string_view::npos; }

std::string replace_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::string out;
  out.reserve(n + 16);
  std::size_t i = 0;
  while (i < n) {
    if (s[i] < 0x80) {
      out.push_back(static_cast<char>(s[i]));
      ++i;
      continue;
    }
    std::size_t prefix = 0;
    std::size_t len = sequence_length(s, n, i, prefix);
    if (len == 0) {
      out.append("\xEF\xBF\xBD");
      i += prefix;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::size_t utf8_length(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) {
    if (!is_utf8_continuation(c)) ++n;
  }
  return n;
}

std::size_t utf8_prefix_size(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_utf8_continuation(text[i])) continue;
    if (chars == max_chars) return i;
    ++chars;
  }
  return text.size();
}

std::size_t utf8_complete_size(std::string_view text) {
  std::size_t lead = text.size();
  while (lead > 0 && text.size() - lead < 4 && is_utf8_continuation(text[lead - 1])) --lead;
  if (lead == 0) return text.size();
  unsigned char c = static_cast<unsigned char>(text[lead - 1]);
  std::size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return text.size() - (lead - 1) < need ? lead - 1 : text.size();
}

}  // namespace attractor
