#pragma once
/// \file
/// Counting the tokens of an input of any length in bounded memory (`attractor tokens`): the input
/// is read in windows and each is counted up to its last token cut point (chunked_counter.h), where
/// no pre-tokenizer piece continues, so the sum equals the count of the whole text. What follows
/// the cut waits for the next window. A stretch without any cut point is held until one comes, up
/// to a limit (docs/hardening.md, "Limits").

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>

#include "attractor/tokens/token_counter.h"

namespace attractor {

/// The bounds of one streamed count.
struct TokenStreamLimits {
  std::size_t window = 1u << 20;         ///< bytes read (and counted) at a time
  std::size_t max_uncut = 64u << 20;     ///< longest stretch without a cut point that is held
  std::uint64_t max_bytes = UINT64_MAX;  ///< the input is refused past this many bytes
};

/// The input broke a limit; what() says which, with the byte offset.
class TokenStreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads `fd` to its end and returns its token count (equal to `counter.count(whole, allowed)`).
/// `on_ids`, when set, gets the ids of each counted part in order (their concatenation is
/// `counter.encode(whole, allowed)`). Throws TokenStreamError past a limit, std::system_error on
/// a read error.
std::uint64_t count_tokens_streamed(int fd, const TokenCounter& counter, const AllowedSpecial& allowed,
                                    const TokenStreamLimits& limits = {},
                                    const std::function<void(std::span<const TokenId>)>& on_ids = nullptr);

}  // namespace attractor
