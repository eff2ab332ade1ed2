#pragma once
/// \file
/// Pre-tokenization: splitting text into the pieces that byte-pair encoding merges within.
/// The patterns follow the reference tokenizer's JavaScript regular expressions (flags `gu`);
/// they run on PCRE2 with UTF, UCP and JIT. Where the two regex dialects differ the patterns
/// spell the JavaScript meaning out: `\s` is JavaScript's white-space set (which includes
/// U+FEFF), and the end anchor is `\z` (PCRE2's `$` would also match before a final newline).
/// Unicode properties (`\p{L}`, `\p{N}`, ...) come from PCRE2's tables (Unicode 14 in PCRE2
/// 10.42). Compared with Node 20's ICU (Unicode 17) the only differences are characters assigned
/// after Unicode 14 (PCRE2 sees them as unassigned) and U+0295, which PCRE2 calls Ll and Unicode
/// 16 calls Lo; text using them may be split differently from the JavaScript reference.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace attractor {

/// JavaScript's `\s` as the body of a PCRE2 character class.
extern const char* const kJsWhiteSpaceClass;

/// The split pattern of `o200k_base`, in PCRE2 syntax.
std::string o200k_split_pattern();
/// The split pattern of `cl100k_base`, in PCRE2 syntax.
std::string cl100k_split_pattern();

/// A compiled split pattern. Immutable and thread-safe (match state is per thread).
class Pretokenizer {
 public:
  /// Compiles `pattern` with UTF and UCP and JIT-compiles it when the platform supports it.
  /// Throws std::invalid_argument with PCRE2's message when the pattern does not compile.
  explicit Pretokenizer(const std::string& pattern);
  ~Pretokenizer();
  Pretokenizer(const Pretokenizer&) = delete;
  Pretokenizer& operator=(const Pretokenizer&) = delete;

  /// Calls `piece` for each successive match in `text`, which must be valid UTF-8 (checked by
  /// the caller). Like JavaScript's `matchAll`, text between matches is skipped (the shipped
  /// patterns match everywhere, so nothing is skipped). Throws std::runtime_error on a PCRE2
  /// matching failure such as an exhausted JIT stack.
  template <class Fn>
  void split(std::string_view text, Fn&& piece) const {
    std::size_t offset = 0;
    std::size_t begin = 0, end = 0;
    while (offset < text.size() && next_match(text, offset, begin, end)) {
      piece(text.substr(begin, end - begin));
      offset = end;
    }
  }

  bool jit_enabled() const { return jit_; }

 private:
  /// Finds the first match at or after `offset`; false when there is none.
  bool next_match(std::string_view text, std::size_t offset, std::size_t& begin, std::size_t& end) const;

  void* code_ = nullptr;  ///< pcre2_code_8*
  bool jit_ = false;
};

}  // namespace attractor
