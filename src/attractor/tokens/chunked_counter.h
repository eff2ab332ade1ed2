#pragma once
/// \file
/// Exact token counts of texts that mostly repeat from one call to the next (the preambles of
/// successive stages, the probes of a budget search), without encoding the repeated parts again.
///
/// The text is cut only where every supported pre-tokenizer pattern must end a piece (see
/// `token_cut_points`), so the count of the whole is the sum of the counts of the chunks: byte-pair
/// encoding never merges across pieces. Each chunk's count is remembered.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attractor/tokens/token_counter.h"

namespace attractor {

/// Offsets `i` (0 < i < text.size()) where a text may be cut without changing its token count in
/// `o200k_base` or `cl100k_base`: after a line break followed by printable ASCII other than a
/// space or `/` (o200k's punctuation pieces take trailing line breaks and slashes), and after
/// printable ASCII punctuation followed by a space. Both sides are whole
/// characters there, and no pattern continues a piece over such a point.
std::vector<std::size_t> token_cut_points(std::string_view text);

/// The last of `token_cut_points(text)`, or 0 when there is none (found from the end).
std::size_t last_token_cut_point(std::string_view text);

/// Remembers the count of each chunk of the texts it counts. Not thread-safe: one per thread.
class ChunkedCounter {
 public:
  /// `max_chunks` bounds the memory: the remembered counts are dropped when it is reached.
  explicit ChunkedCounter(std::size_t max_chunks = 1u << 14);

  /// Equal to `counter.count(text)` (no special tokens). Counts remembered for another encoding
  /// are dropped first (counters of one encoding name count alike: their tables are pinned).
  std::size_t count(const TokenCounter& counter, std::string_view text);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::size_t count_chunk(const TokenCounter& counter, std::string_view chunk);

  std::size_t max_chunks_;
  std::string encoding_;
  std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> counts_;
};

}  // namespace attractor
