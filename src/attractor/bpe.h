#pragma once
/// \file
/// Byte-pair merging by rank, as in tiktoken: a piece starts as single bytes and the adjacent
/// pair with the lowest rank (leftmost on ties) is merged until no pair is a known token.
/// Short pieces use a linear scan over a small array; long ones a min-heap over a linked list,
/// so a 100 KB word costs O(n log n), not O(n^2).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attractor/tiktoken_file.h"
#include "attractor/token_counter.h"

namespace attractor {

/// Immutable rank lookup and merging for one encoding's mergeable tokens. Thread-safe.
class BytePairEncoder {
 public:
  static constexpr TokenId kNoRank = 0xFFFFFFFFu;
  /// Pieces up to this many bytes use the linear scan; longer ones the heap.
  static constexpr std::size_t kLinearScanLimit = 64;

  /// Builds the lookup tables. Throws TokenDataError when a token appears twice or one of the
  /// 256 single bytes has no rank.
  explicit BytePairEncoder(RankTable ranks);

  /// Number of mergeable tokens (ranks 0 .. size()-1).
  std::size_t size() const { return table_.size(); }
  /// Rank of exactly these bytes, or kNoRank.
  TokenId rank_of(std::string_view bytes) const;
  /// Bytes of a rank; `rank` must be < size().
  std::string_view token_bytes(TokenId rank) const { return table_.token(rank); }

  /// Appends the tokens of one pre-tokenized piece (whole-piece lookup first, then merging).
  void encode_piece(std::string_view piece, std::vector<TokenId>& out) const;
  /// Appends the tokens produced by merging, without trying the whole piece first.
  void merge_piece(std::string_view piece, std::vector<TokenId>& out) const;
  /// The same merge with the algorithm forced, for tests comparing the two paths.
  void merge_piece_linear(std::string_view piece, std::vector<TokenId>& out) const;
  void merge_piece_heap(std::string_view piece, std::vector<TokenId>& out) const;

 private:
  TokenId lookup(const char* data, std::size_t size) const;
  TokenId pair_rank(const char* data, std::size_t size) const;

  RankTable table_;
  std::vector<std::uint64_t> slots_;  ///< open addressing: (hash tag << 32) | (rank + 1); 0 = empty
  std::uint64_t mask_ = 0;
  std::array<TokenId, 256> byte_rank_{};
  std::vector<TokenId> two_byte_rank_;  ///< 65536 entries indexed by (b0 << 8) | b1
};

/// Remembers the tokens of pieces that needed merging. Not thread-safe: keep one per thread.
/// When full it is cleared, so results never depend on what was cached.
class PieceCache {
 public:
  explicit PieceCache(std::size_t max_entries = 1u << 15) : max_entries_(max_entries) {}

  /// Cached tokens of `piece`, or nullptr.
  const std::vector<TokenId>* find(std::string_view piece) const;
  void insert(std::string_view piece, std::span<const TokenId> tokens);
  std::size_t size() const { return map_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const;
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  std::size_t max_entries_;
  std::unordered_map<std::string, std::vector<TokenId>, Hash, Equal> map_;
};

/// The 64-bit hash used by the rank table and the piece cache.
std::uint64_t hash_token_bytes(const char* data, std::size_t size);

}  // namespace attractor
