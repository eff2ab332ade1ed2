#pragma once
/// \file
/// The one token counter of the project: exact, tiktoken-compatible byte-pair encoding
/// (`o200k_base` by default, `cl100k_base`). Fidelity budgets, `fetch_node_texts` and
/// `manage_context_budget` all count through this interface; no heuristic is used anywhere.
///
/// Text is UTF-8. Invalid UTF-8 is decoded lossily first, like the WHATWG `TextDecoder` (each
/// maximal invalid subsequence becomes U+FFFD; a leading byte-order mark is kept, as with
/// `ignoreBOM: true`), so the ids equal what the reference JavaScript tokenizer produces for the
/// decoded string.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

class Graph;

/// A token id (a rank of the encoding, or the id of a special token).
using TokenId = std::uint32_t;

/// The encoding used when a graph has no `token_encoding` attribute.
inline constexpr std::string_view kDefaultTokenEncoding = "o200k_base";

/// Which special-token strings (such as `<|endoftext|>`) `encode` turns into their special ids.
/// Special tokens that are not allowed are encoded as ordinary text; nothing throws.
struct AllowedSpecial {
  bool all = false;                 ///< every special token of the encoding is allowed
  std::vector<std::string> tokens;  ///< allowed by name when `all` is false

  /// No special token recognised (the default).
  static AllowedSpecial none() { return {}; }
  /// Every special token of the encoding recognised.
  static AllowedSpecial everything() { return {true, {}}; }
  bool allows(std::string_view token) const {
    if (all) return true;
    for (const auto& t : tokens) {
      if (t == token) return true;
    }
    return false;
  }
  bool any() const { return all || !tokens.empty(); }
};

/// The encoding name is not one of `known_token_encodings()`.
class UnknownEncodingError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A rank file is missing, unreadable or corrupt. The message names the path(s).
class TokenDataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Exact token counting for one encoding. Implementations are immutable and thread-safe.
class TokenCounter {
 public:
  virtual ~TokenCounter() = default;

  /// "o200k_base" or "cl100k_base".
  virtual std::string_view encoding_name() const = 0;
  /// Token ids of `text`.
  virtual std::vector<TokenId> encode(std::string_view text, const AllowedSpecial& allowed = {}) const = 0;
  /// Number of tokens `encode` would return, without building the id list.
  virtual std::size_t count(std::string_view text, const AllowedSpecial& allowed = {}) const = 0;
  /// The bytes the ids stand for (may be invalid UTF-8 when a multi-byte character is split).
  /// Throws std::out_of_range for an id that is neither a rank nor a special token.
  virtual std::string decode(std::span<const TokenId> ids) const = 0;

  /// Counts each text, running up to `max_threads` workers at once (0 = hardware concurrency).
  /// Results are in input order and identical to calling `count` on each text.
  std::vector<std::size_t> count_many(std::span<const std::string_view> texts, unsigned max_threads = 0) const;
  std::vector<std::size_t> count_many(const std::vector<std::string>& texts, unsigned max_threads = 0) const;
};

/// Encoding names `token_counter_for` accepts.
std::vector<std::string_view> known_token_encodings();

/// The shared counter for an encoding, made on first use (thread-safe) from the tables built into
/// the binary, or in a build without them from its rank file.
/// Throws UnknownEncodingError for an unknown name and TokenDataError when the data is
/// missing or corrupt (a later call retries the load).
std::shared_ptr<const TokenCounter> token_counter_for(std::string_view encoding_name);

/// The counter selected by the graph attribute `token_encoding` (default `o200k_base`).
std::shared_ptr<const TokenCounter> token_counter_for_graph(const Graph& graph);

}  // namespace attractor
