#include "attractor/tokens/bpe_table_blob.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>

#include <fmt/format.h>

namespace attractor {

namespace {

constexpr char kMagic[8] = {'A', 'T', 'R', 'B', 'P', 'E', 'T', 'B'};
constexpr std::string_view kHashProbeText = "attractor token tables";

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t token_count;
  std::uint32_t bytes_size;
  std::uint32_t slot_count;
  std::uint64_t hash_probe;  ///< hash_token_bytes(kHashProbeText): the slots depend on the hash
  char source_sha256[64];
};
static_assert(sizeof(Header) == 96 && sizeof(Header) % alignof(BpeSlot) == 0);

/// Byte offsets of the sections, from the header's counts (64-bit: corrupt counts cannot wrap).
struct Layout {
  std::uint64_t slots, byte_rank, two_byte_rank, offsets, bytes, total;
};

Layout layout_of(const Header& h) {
  Layout l{};
  l.slots = sizeof(Header);
  l.byte_rank = l.slots + std::uint64_t{h.slot_count} * sizeof(BpeSlot);
  l.two_byte_rank = l.byte_rank + 256 * sizeof(TokenId);
  l.offsets = l.two_byte_rank + 65536 * sizeof(TokenId);
  l.bytes = l.offsets + (std::uint64_t{h.token_count} + 1) * sizeof(std::uint32_t);
  l.total = l.bytes + h.bytes_size;
  return l;
}

std::uint64_t hash_probe() { return hash_token_bytes(kHashProbeText.data(), kHashProbeText.size()); }

template <class T>
void put_section(std::string& out, std::uint64_t at, std::span<const T> items) {
  if (!items.empty()) std::memcpy(out.data() + at, items.data(), items.size_bytes());
}

template <class T>
std::span<const T> section(std::string_view blob, std::uint64_t at, std::size_t count) {
  return {reinterpret_cast<const T*>(blob.data() + at), count};
}

[[noreturn]] void refuse(std::string_view origin, std::string_view problem) {
  throw TokenDataError(fmt::format("corrupt token tables {}: {}", origin, problem));
}

Header read_header(std::string_view blob, std::string_view origin) {
  Header h;
  if (blob.size() < sizeof(Header)) {
    refuse(origin, fmt::format("{} bytes, shorter than the {}-byte header (truncated)", blob.size(), sizeof(Header)));
  }
  std::memcpy(&h, blob.data(), sizeof(Header));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) refuse(origin, "bad magic, not a token table blob");
  if (h.version != kBpeTableBlobVersion) {
    refuse(origin, fmt::format("format version {} but this build reads version {}", h.version, kBpeTableBlobVersion));
  }
  if (h.hash_probe != hash_probe()) refuse(origin, "built with another hash function");
  if (h.token_count == 0 || !std::has_single_bit(h.slot_count) || h.slot_count <= h.token_count) {
    refuse(origin, fmt::format("{} tokens in {} slots", h.token_count, h.slot_count));
  }
  return h;
}

}  // namespace

std::string write_bpe_table_blob(const BpeTables& tables, std::string_view source_sha256) {
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  if (source_sha256.size() != sizeof(Header::source_sha256) || tables.byte_rank.size() != 256 ||
      tables.two_byte_rank.size() != 65536 || tables.size() == 0 || tables.size() >= kMax ||
      tables.bytes.size() > kMax || tables.slots.size() > kMax) {
    throw TokenDataError("cannot write token tables: unexpected table shape or sha256");
  }
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kBpeTableBlobVersion;
  h.token_count = static_cast<std::uint32_t>(tables.size());
  h.bytes_size = static_cast<std::uint32_t>(tables.bytes.size());
  h.slot_count = static_cast<std::uint32_t>(tables.slots.size());
  h.hash_probe = hash_probe();
  std::memcpy(h.source_sha256, source_sha256.data(), sizeof(h.source_sha256));
  const Layout l = layout_of(h);
  std::string out(l.total, '\0');
  std::memcpy(out.data(), &h, sizeof(h));
  put_section(out, l.slots, tables.slots);
  put_section(out, l.byte_rank, tables.byte_rank);
  put_section(out, l.two_byte_rank, tables.two_byte_rank);
  put_section(out, l.offsets, tables.offsets);
  put_section(out, l.bytes, std::span<const char>(tables.bytes));
  return out;
}

BpeTableBlob view_bpe_table_blob(std::string_view blob, std::string_view origin) {
  const Header h = read_header(blob, origin);
  const Layout l = layout_of(h);
  if (blob.size() != l.total) {
    refuse(origin,
           fmt::format("{} bytes where its header's counts need {} (truncated or padded)", blob.size(), l.total));
  }
  if (reinterpret_cast<std::uintptr_t>(blob.data()) % alignof(BpeSlot) != 0) {
    refuse(origin, fmt::format("data not {}-byte aligned", alignof(BpeSlot)));
  }
  BpeTableBlob out;
  BpeTables& t = out.tables;
  t.slots = section<BpeSlot>(blob, l.slots, h.slot_count);
  t.byte_rank = section<TokenId>(blob, l.byte_rank, 256);
  t.two_byte_rank = section<TokenId>(blob, l.two_byte_rank, 65536);
  t.offsets = section<std::uint32_t>(blob, l.offsets, std::size_t{h.token_count} + 1);
  t.bytes = blob.substr(l.bytes, h.bytes_size);
  if (t.offsets.front() != 0 || t.offsets.back() != h.bytes_size) refuse(origin, "token offsets do not span the bytes");
  if (std::any_of(t.byte_rank.begin(), t.byte_rank.end(), [&](TokenId r) { return r >= h.token_count; })) {
    refuse(origin, "a single-byte rank is out of range");
  }
  out.source_sha256 = blob.substr(offsetof(Header, source_sha256), sizeof(h.source_sha256));
  return out;
}

}  // namespace attractor
