#pragma once
/// \file
/// Byte-pair merging by rank, as in tiktoken: a piece starts as single bytes and the adjacent
/// pair with the lowest rank (leftmost on ties) is merged until no pair is a known token.
/// Short pieces use a linear scan over a small array; long ones a min-heap over a linked list,
/// so a 100 KB word costs O(n log n), not O(n^2).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/tokens/bpe_tables.h"
#include "attractor/tokens/tiktoken_file.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {

/// Immutable rank lookup and merging for one encoding's mergeable tokens. Thread-safe. Copies
/// share the tables.
class BytePairEncoder {
 public:
  static constexpr TokenId kNoRank = kNoTokenRank;
  /// Pieces up to this many bytes use the linear scan; longer ones the heap.
  static constexpr std::size_t kLinearScanLimit = 64;

  /// Builds the lookup tables from parsed ranks and owns them. Throws TokenDataError when a
  /// token appears twice or one of the 256 single bytes has no rank.
  explicit BytePairEncoder(RankTable ranks);
  /// Uses tables built elsewhere (e.g. linked into the binary) in place; their memory must
  /// outlive the encoder. Throws TokenDataError when their sizes do not fit together; their
  /// contents are trusted.
  explicit BytePairEncoder(const BpeTables& tables);

  /// Number of mergeable tokens (ranks 0 .. size()-1).
  std::size_t size() const { return tables_.size(); }
  /// Rank of exactly these bytes, or kNoRank.
  TokenId rank_of(std::string_view bytes) const;
  /// Bytes of a rank; `rank` must be < size().
  std::string_view token_bytes(TokenId rank) const { return tables_.token(rank); }
  /// The tables in use.
  const BpeTables& tables() const { return tables_; }

  /// Appends the tokens of one pre-tokenized piece (whole-piece lookup first, then merging).
  void encode_piece(std::string_view piece, std::vector<TokenId>& out) const;
  /// Appends the tokens produced by merging, without trying the whole piece first.
  void merge_piece(std::string_view piece, std::vector<TokenId>& out) const;
  /// The same merge with the algorithm forced, for tests comparing the two paths.
  void merge_piece_linear(std::string_view piece, std::vector<TokenId>& out) const;
  void merge_piece_heap(std::string_view piece, std::vector<TokenId>& out) const;

 private:
  explicit BytePairEncoder(std::shared_ptr<const OwnedBpeTables> owned);

  TokenId lookup(const char* data, std::size_t size) const;
  TokenId pair_rank(const char* data, std::size_t size) const;

  std::shared_ptr<const OwnedBpeTables> owned_;  ///< null when the tables live elsewhere
  BpeTables tables_;
  std::uint64_t mask_ = 0;
};

/// Remembers the tokens of pieces that needed merging: a direct-mapped table where a new piece
/// replaces whatever shared its slot, so results never depend on what was cached. Entries reuse
/// their storage. The table starts empty and grows by fours (from 256 slots) while more than half
/// its slots are taken, up to `entries`: a short run that merges a few pieces does not pay for
/// a full table. Not thread-safe: keep one per thread.
class PieceCache {
 public:
  /// `entries`, the most slots the table grows to, is rounded up to a power of two.
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
  /// Allocates the first slots or, past half full, four times as many, keeping what fits.
  void grow();

  std::vector<Entry> entries_;
  std::size_t capacity_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;
};

}  // namespace attractor
