#pragma once
/// \file
/// UTF-8 validation and the lossy decoding the token counter applies to invalid input.

#include <string>
#include <string_view>

namespace attractor {

/// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool is_valid_utf8(std::string_view text);

/// `text` with every maximal invalid subsequence replaced by U+FFFD (EF BF BD), following the
/// WHATWG Encoding Standard's UTF-8 decoder, i.e. what JavaScript's `TextDecoder` produces with
/// `ignoreBOM: true`. Valid input is returned unchanged.
std::string replace_invalid_utf8(std::string_view text);

}  // namespace attractor
