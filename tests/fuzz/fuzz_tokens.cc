// libFuzzer target: the token counter. The first byte picks the encoding and whether special tokens
// are allowed; the rest is text. Random bytes must never crash; count() equals encode().size();
// decode(encode(x)) == x for valid UTF-8 (and the lossily decoded text otherwise). The same bytes
// read as ids must decode or throw std::out_of_range.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/tokens/token_counter.h"
#include "attractor/base/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  static const std::shared_ptr<const TokenCounter> o200k = token_counter_for("o200k_base");
  static const std::shared_ptr<const TokenCounter> cl100k = token_counter_for("cl100k_base");
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const TokenCounter& counter = (mode & 1) ? *cl100k : *o200k;
  const AllowedSpecial allowed = (mode & 2) ? AllowedSpecial::everything() : AllowedSpecial::none();

  std::vector<TokenId> ids = counter.encode(text, allowed);
  if (counter.count(text, allowed) != ids.size()) __builtin_trap();
  std::string decoded = counter.decode(ids);
  if (is_valid_utf8(text)) {
    if (decoded != text) __builtin_trap();
  } else if (decoded != replace_invalid_utf8(text)) {
    __builtin_trap();
  }

  std::vector<TokenId> raw((size - 1) / 4);
  if (!raw.empty()) std::memcpy(raw.data(), data + 1, raw.size() * 4);
  for (TokenId& id : raw) id %= (mode & 4) ? 0xFFFFFFFFu : 210000u;
  try {
    std::string bytes = counter.decode(raw);
    if (bytes.size() > raw.size() * 256) __builtin_trap();
  } catch (const std::out_of_range&) {
  }
  return 0;
}
