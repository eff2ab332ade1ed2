#pragma once
/// \file
/// UTF-8 validation, the lossy decoding the token counter applies to invalid input, and character
/// boundaries for counting and cutting text by characters.

#include <string>
#include <string_view>

namespace attractor {

/// Offset of the first byte of `text` that does not start a well-formed UTF-8 sequence (overlongs,
/// surrogates and code points above U+10FFFF are not), or std::string_view::npos when there is none.
std::size_t find_invalid_utf8(std::string_view text);

/// True when `text` is well-formed UTF-8: find_invalid_utf8 finds nothing.
bool is_valid_utf8(std::string_view text);

/// `text` with every maximal invalid subsequence replaced by U+FFFD (EF BF BD), following the
/// WHATWG Encoding Standard's UTF-8 decoder, i.e. what JavaScript's `TextDecoder` produces with
/// `ignoreBOM: true`. Valid input is returned unchanged.
std::string replace_invalid_utf8(std::string_view text);

/// True for a continuation byte (10xxxxxx): it never starts a character.
constexpr bool is_utf8_continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

/// The number of characters of `text`: its bytes that are not continuation bytes.
std::size_t utf8_length(std::string_view text);

/// The size in bytes of the first `max_chars` characters of `text`; `text.size()` when it has no more.
std::size_t utf8_prefix_size(std::string_view text, std::size_t max_chars);

/// The size in bytes of `text` without a last character whose lead byte announces more bytes than
/// follow it (a character cut in the middle); `text.size()` when the last character is whole.
std::size_t utf8_complete_size(std::string_view text);

}  // namespace attractor
