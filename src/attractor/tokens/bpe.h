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
#include <vector>

#include "attractor/tokens/tiktoken_file.h"
#include "attractor/tokens/token_counter.h"

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
  /// One open-addressing slot. The first 8 bytes of the token live in the slot, so tokens of up
  /// to 8 bytes (most lookups) are found without touching the rank table.
  struct Slot {
    std::uint64_t head = 0;        ///< first 8 bytes, zero-padded
    std::uint32_t rank_plus1 = 0;  ///< 0 = empty
    std::uint32_t check = 0;       ///< (hash bits << 8) | min(size, 255)
  };

  TokenId lookup(const char* data, std::size_t size) const;
  TokenId pair_rank(const char* data, std::size_t size) const;

  RankTable table_;
  std::vector<Slot> slots_;
  std::uint64_t mask_ = 0;
  std::array<TokenId, 256> byte_rank_{};
  std::vector<TokenId> two_byte_rank_;  ///< 65536 entries indexed by (b0 << 8) | b1
};

/// Remembers the tokens of pieces that needed merging: a direct-mapped table where a new piece
/// replaces whatever shared its slot, so results never depend on what was cached. Entries reuse
/// their storage. Not thread-safe: keep one per thread.
class PieceCache {
 public:
  /// `entries` is rounded up to a power of two.
  explicit PieceCache(std::size_t entries = 1u << 14);

  /// Cached tokens of `piece`, or nullptr.
  const std::vector<TokenId>* find(std::string_view piece) const;
  void insert(std::string_view piece, std::span<const TokenId> tokens);
  /// Occupied entries.
  std::size_t size() const { return used_; }

 private:
  struct Entry {
    std::uint64_t hash = 0;
    bool used = false;
    std::string piece;
    std::vector<TokenId> tokens;
  };
  std::vector<Entry> entries_;
  std::size_t mask_;
  std::size_t used_ = 0;
};

/// The 64-bit hash used by the rank table and the piece cache.
std::uint64_t hash_token_bytes(const char* data, std::size_t size);

}  // namespace attractor
