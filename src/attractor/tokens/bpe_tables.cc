#include "attractor/tokens/bpe_tables.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace attractor {

OwnedBpeTables::OwnedBpeTables(RankTable ranks) : ranks_(std::move(ranks)) {
  view_.bytes = ranks_.bytes;
  view_.offsets = ranks_.offsets;
  fill_slots();
  fill_byte_ranks();
  view_.slots = slots_;
  view_.byte_rank = byte_rank_;
  view_.two_byte_rank = two_byte_rank_;
}

void OwnedBpeTables::fill_slots() {
  const std::size_t n = ranks_.size();
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, n + n / 4));
  const std::size_t mask = capacity - 1;
  slots_.assign(capacity, BpeSlot{});
  // Insert in the order of the home slots, so the table is written front to back instead of at
  // random (the 200k-token tables are megabytes); lookups do not depend on insertion order.
  std::vector<std::uint64_t> hashes(n);
  const int bucket_bits = std::min(16, std::countr_zero(capacity));
  const int shift = std::countr_zero(capacity) - bucket_bits;
  std::vector<std::uint32_t> bucket_start((std::size_t{1} << bucket_bits) + 1, 0);
  for (TokenId rank = 0; rank < n; ++rank) {
    std::string_view bytes = ranks_.token(rank);
    hashes[rank] = hash_token_bytes(bytes.data(), bytes.size());
    ++bucket_start[((hashes[rank] & mask) >> shift) + 1];
  }
  for (std::size_t b = 1; b < bucket_start.size(); ++b) bucket_start[b] += bucket_start[b - 1];
  std::vector<TokenId> by_home(n);
  for (TokenId rank = 0; rank < n; ++rank) by_home[bucket_start[(hashes[rank] & mask) >> shift]++] = rank;
  for (TokenId rank : by_home) {
    std::string_view bytes = ranks_.token(rank);
    const std::uint64_t h = hashes[rank];
    const BpeSlot slot{bpe_slot_head(bytes.data(), bytes.size()), rank + 1, bpe_slot_check(h, bytes.size())};
    std::size_t i = h & mask;
    for (; slots_[i].rank_plus1 != 0; i = (i + 1) & mask) {
      const BpeSlot& other = slots_[i];
      if (other.check == slot.check && other.head == slot.head && ranks_.token(other.rank_plus1 - 1) == bytes) {
        const TokenId a = std::min(other.rank_plus1 - 1, rank), b = std::max(other.rank_plus1 - 1, rank);
        throw TokenDataError(fmt::format("corrupt rank data: ranks {} and {} have the same bytes", a, b));
      }
    }
    slots_[i] = slot;
  }
}

void OwnedBpeTables::fill_byte_ranks() {
  byte_rank_.assign(256, kNoTokenRank);
  two_byte_rank_.assign(65536, kNoTokenRank);
  for (TokenId rank = 0; rank < ranks_.size(); ++rank) {
    std::string_view bytes = ranks_.token(rank);
    if (bytes.empty()) continue;
    const auto b0 = static_cast<unsigned char>(bytes[0]);
    if (bytes.size() == 1) byte_rank_[b0] = rank;
    if (bytes.size() == 2) two_byte_rank_[(b0 << 8) | static_cast<unsigned char>(bytes[1])] = rank;
  }
  for (int b = 0; b < 256; ++b) {
    if (byte_rank_[b] == kNoTokenRank) {
      throw TokenDataError(fmt::format("corrupt rank data: byte 0x{:02x} has no rank", b));
    }
  }
}

}  // namespace attractor
