#include "attractor/tokens/bpe.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <utility>

#include <fmt/format.h>

namespace attractor {

BytePairEncoder::BytePairEncoder(RankTable ranks)
    : BytePairEncoder(std::make_shared<const OwnedBpeTables>(std::move(ranks))) {}

BytePairEncoder::BytePairEncoder(std::shared_ptr<const OwnedBpeTables> owned) : BytePairEncoder(owned->view()) {
  owned_ = std::move(owned);
}

BytePairEncoder::BytePairEncoder(const BpeTables& tables) : tables_(tables), mask_(tables.slots.size() - 1) {
  // Lookups stop at an empty slot and index the single-byte ranks directly.
  if (!std::has_single_bit(tables.slots.size()) || tables.slots.size() <= tables.size() ||
      tables.byte_rank.size() != 256 || tables.two_byte_rank.size() != 65536) {
    throw TokenDataError("token tables of the wrong shape");
  }
}

TokenId BytePairEncoder::lookup(const char* data, std::size_t size) const {
  const std::uint64_t h = hash_token_bytes(data, size);
  const std::uint32_t check = bpe_slot_check(h, size);
  const std::uint64_t head = bpe_slot_head(data, size);
  const BpeSlot* slots = tables_.slots.data();
  for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
    const BpeSlot& slot = slots[i];
    if (slot.rank_plus1 == 0) return kNoRank;
    if (slot.check != check || slot.head != head) continue;
    const TokenId rank = slot.rank_plus1 - 1;
    if (size <= 8) return rank;
    const std::uint32_t begin = tables_.offsets[rank];
    if (tables_.offsets[rank + 1] - begin == size &&
        std::memcmp(tables_.bytes.data() + begin + 8, data + 8, size - 8) == 0) {
      return rank;
    }
  }
}

inline TokenId BytePairEncoder::pair_rank(const char* data, std::size_t size) const {
  if (size == 2) {
    return tables_.two_byte_rank[(static_cast<unsigned char>(data[0]) << 8) | static_cast<unsigned char>(data[1])];
  }
  return lookup(data, size);
}

TokenId BytePairEncoder::rank_of(std::string_view bytes) const {
  if (bytes.empty()) return kNoRank;
  if (bytes.size() == 1) return tables_.byte_rank[static_cast<unsigned char>(bytes[0])];
  return pair_rank(bytes.data(), bytes.size());
}

void BytePairEncoder::encode_piece(std::string_view piece, std::vector<TokenId>& out) const {
  if (piece.empty()) return;
  const TokenId whole = rank_of(piece);
  if (whole != kNoRank) {
    out.push_back(whole);
    return;
  }
  merge_piece(piece, out);
}

void BytePairEncoder::merge_piece(std::string_view piece, std::vector<TokenId>& out) const {
  if (piece.size() <= kLinearScanLimit) {
    merge_piece_linear(piece, out);
  } else {
    merge_piece_heap(piece, out);
  }
}

void BytePairEncoder::merge_piece_linear(std::string_view piece, std::vector<TokenId>& out) const {
  const std::size_t n = piece.size();
  if (n == 0) return;
  if (n > kLinearScanLimit) {
    merge_piece_heap(piece, out);
    return;
  }
  const char* b = piece.data();
  // Part i covers [start[i], start[i + 1]); pair[i] is the rank of part i joined with part i + 1.
  std::uint32_t start[kLinearScanLimit + 1];
  TokenId pair[kLinearScanLimit];
  TokenId token[kLinearScanLimit];
  for (std::size_t i = 0; i < n; ++i) {
    start[i] = static_cast<std::uint32_t>(i);
    token[i] = tables_.byte_rank[static_cast<unsigned char>(b[i])];
    pair[i] = i + 1 < n ? pair_rank(b + i, 2) : kNoRank;
  }
  start[n] = static_cast<std::uint32_t>(n);
  std::size_t parts = n;
  while (parts > 1) {
    TokenId best = kNoRank;
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < parts; ++i) {
      if (pair[i] < best) {
        best = pair[i];
        at = i;
      }
    }
    if (best == kNoRank) break;
    token[at] = best;
    const std::size_t tail = parts - (at + 2);
    std::memmove(start + at + 1, start + at + 2, (tail + 1) * sizeof(start[0]));
    std::memmove(pair + at + 1, pair + at + 2, tail * sizeof(pair[0]));
    std::memmove(token + at + 1, token + at + 2, tail * sizeof(token[0]));
    --parts;
    pair[at] = at + 1 < parts ? pair_rank(b + start[at], start[at + 2] - start[at]) : kNoRank;
    if (at > 0) pair[at - 1] = pair_rank(b + start[at - 1], start[at + 1] - start[at - 1]);
  }
  out.insert(out.end(), token, token + parts);
}

void BytePairEncoder::merge_piece_heap(std::string_view piece, std::vector<TokenId>& out) const {
  const std::size_t n = piece.size();
  if (n == 0) return;
  const char* b = piece.data();
  struct Scratch {
    std::vector<std::uint32_t> next, prev;
    std::vector<TokenId> pair, token;
    std::vector<std::uint64_t> heap;
  };
  thread_local Scratch s;
  // Parts are named by their start offset; `next[p]` is the start of the following part (n = end).
  s.next.resize(n);
  s.prev.resize(n + 1);
  s.pair.resize(n);
  s.token.resize(n);
  s.heap.clear();
  const auto later = std::greater<std::uint64_t>();
  for (std::size_t i = 0; i < n; ++i) {
    s.next[i] = static_cast<std::uint32_t>(i + 1);
    s.prev[i + 1] = static_cast<std::uint32_t>(i);
    s.token[i] = tables_.byte_rank[static_cast<unsigned char>(b[i])];
    s.pair[i] = i + 1 < n ? pair_rank(b + i, 2) : kNoRank;
    if (s.pair[i] != kNoRank) s.heap.push_back((static_cast<std::uint64_t>(s.pair[i]) << 32) | i);
  }
  std::make_heap(s.heap.begin(), s.heap.end(), later);
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), later);
    const std::uint64_t entry = s.heap.back();
    s.heap.pop_back();
    const TokenId rank = static_cast<TokenId>(entry >> 32);
    const std::uint32_t p = static_cast<std::uint32_t>(entry & 0xFFFFFFFFu);
    if (s.pair[p] != rank) continue;  // stale: the part was merged away or has grown since
    const std::uint32_t q = s.next[p];
    const std::uint32_t r = s.next[q];
    s.token[p] = rank;
    s.pair[q] = kNoRank;
    s.next[p] = r;
    s.prev[r] = p;
    s.pair[p] = r < n ? pair_rank(b + p, s.next[r] - p) : kNoRank;
    if (s.pair[p] != kNoRank) {
      s.heap.push_back((static_cast<std::uint64_t>(s.pair[p]) << 32) | p);
      std::push_heap(s.heap.begin(), s.heap.end(), later);
    }
    if (p > 0) {
      const std::uint32_t o = s.prev[p];
      s.pair[o] = pair_rank(b + o, r - o);
      if (s.pair[o] != kNoRank) {
        s.heap.push_back((static_cast<std::uint64_t>(s.pair[o]) << 32) | o);
        std::push_heap(s.heap.begin(), s.heap.end(), later);
      }
    }
  }
  for (std::uint32_t p = 0; p < n; p = s.next[p]) out.push_back(s.token[p]);
}

PieceCache::PieceCache(std::size_t entries) : capacity_(std::bit_ceil(std::max<std::size_t>(1, entries))) {}

const std::vector<TokenId>* PieceCache::find(std::string_view piece) const {
  if (entries_.empty()) return nullptr;
  const std::uint64_t h = hash_token_bytes(piece.data(), piece.size());
  const Entry& e = entries_[h & mask_];
  return e.used && e.hash == h && e.piece == piece ? &e.tokens : nullptr;
}

void PieceCache::grow() {
  constexpr std::size_t kFirstSlots = 256;
  const std::size_t slots = std::min(capacity_, entries_.empty() ? kFirstSlots : entries_.size() * 4);
  std::vector<Entry> old = std::exchange(entries_, std::vector<Entry>(slots));
  mask_ = slots - 1;
  used_ = 0;
  for (Entry& e : old) {
    if (!e.used) continue;
    Entry& slot = entries_[e.hash & mask_];
    if (!slot.used) ++used_;
    slot = std::move(e);
  }
}

void PieceCache::insert(std::string_view piece, std::span<const TokenId> tokens) {
  if (entries_.empty() || (used_ * 2 > entries_.size() && entries_.size() < capacity_)) grow();
  const std::uint64_t h = hash_token_bytes(piece.data(), piece.size());
  Entry& e = entries_[h & mask_];
  if (!e.used) ++used_;
  e.used = true;
  e.hash = h;
  e.piece.assign(piece);
  e.tokens.assign(tokens.begin(), tokens.end());
}

}  // namespace attractor
