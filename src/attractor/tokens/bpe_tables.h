#pragma once
/// \file
/// The lookup tables byte-pair merging reads: the tokens' bytes by rank, an open-addressing hash
/// table from bytes to rank, and direct tables for single bytes and byte pairs. `BpeTables` only
/// views them, so they can live in the binary (built at build time, bpe_table_blob.h) or in an
/// `OwnedBpeTables` built from a parsed rank file; both are made by the code in this file.

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "attractor/tokens/tiktoken_file.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {

/// Returned by lookups for bytes that are not a token.
inline constexpr TokenId kNoTokenRank = 0xFFFFFFFFu;

/// One open-addressing slot. The first 8 bytes of the token live in the slot, so tokens of up to
/// 8 bytes (most lookups) are found without touching the token bytes. Its layout is part of the
/// table blob format: change it only with a new blob version.
struct BpeSlot {
  std::uint64_t head;        ///< first 8 bytes, zero-padded
  std::uint32_t rank_plus1;  ///< 0 = empty
  std::uint32_t check;       ///< (hash bits << 8) | min(size, 255)
};
static_assert(sizeof(BpeSlot) == 16 && alignof(BpeSlot) == 8);

/// Views of one encoding's tables; the memory belongs to someone else and must outlive the view.
struct BpeTables {
  std::string_view bytes;                  ///< every token's bytes, concatenated in rank order
  std::span<const std::uint32_t> offsets;  ///< token r is bytes[offsets[r], offsets[r + 1])
  std::span<const BpeSlot> slots;          ///< power-of-two count, more than the tokens
  std::span<const TokenId> byte_rank;      ///< 256 entries: rank of each single byte
  std::span<const TokenId> two_byte_rank;  ///< 65536 entries by (b0 << 8) | b1, or kNoTokenRank

  /// Number of mergeable tokens (ranks 0 .. size()-1).
  std::size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  /// Bytes of a rank; `rank` must be < size().
  std::string_view token(TokenId rank) const { return bytes.substr(offsets[rank], offsets[rank + 1] - offsets[rank]); }
};

/// Tables built from a parsed rank file, with storage of their own (not movable: the view points
/// into it). Throws TokenDataError when a token appears twice or one of the 256 single bytes has
/// no rank.
class OwnedBpeTables {
 public:
  explicit OwnedBpeTables(RankTable ranks);
  OwnedBpeTables(const OwnedBpeTables&) = delete;
  OwnedBpeTables& operator=(const OwnedBpeTables&) = delete;

  const BpeTables& view() const { return view_; }

 private:
  void fill_slots();
  void fill_byte_ranks();

  RankTable ranks_;
  std::vector<BpeSlot> slots_;
  std::vector<TokenId> byte_rank_;
  std::vector<TokenId> two_byte_rank_;
  BpeTables view_;
};

/// The 64-bit hash used by the slot table and the piece cache (inline: lookups are hot).
inline std::uint64_t hash_token_bytes(const char* data, std::size_t size) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  std::uint64_t h = 0x243F6A8885A308D3ULL ^ (size * kMul);
  while (size >= 8) {
    std::uint64_t w;
    std::memcpy(&w, data, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
    data += 8;
    size -= 8;
  }
  if (size > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, data, size);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  return h;
}

/// The `check` field of the slot of `size` bytes hashing to `hash`.
inline std::uint32_t bpe_slot_check(std::uint64_t hash, std::size_t size) {
  return static_cast<std::uint32_t>(hash >> 40) << 8 | static_cast<std::uint32_t>(size < 255 ? size : 255);
}

/// The `head` field of the slot of these bytes.
inline std::uint64_t bpe_slot_head(const char* data, std::size_t size) {
  std::uint64_t head = 0;
  std::memcpy(&head, data, size < 8 ? size : 8);
  return head;
}

}  // namespace attractor
