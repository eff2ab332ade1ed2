#pragma once
/// \file
/// The token-table blob: one encoding's `BpeTables` as a single block of bytes, written at build
/// time by `attractor_token_tablegen` and linked into the binary, then used in place at run
/// time, so a process gets a ready counter without decoding, hashing or copying anything.
///
/// Layout, in the byte order of the machine that built it: a 96-byte header (magic, version,
/// a probe of the hash function, counts, the sha256 of the source rank file), then the slots, the
/// 256 single-byte ranks, the 65536 byte-pair ranks, the token offsets and the token bytes. The
/// slots start 96 bytes in, so an 8-byte aligned blob has every section aligned.

#include <cstdint>
#include <string>
#include <string_view>

#include "attractor/tokens/bpe_tables.h"

namespace attractor {

/// The blob format this build writes and reads.
inline constexpr std::uint32_t kBpeTableBlobVersion = 1;

/// A blob's contents, viewed in place.
struct BpeTableBlob {
  BpeTables tables;
  std::string_view source_sha256;  ///< sum of the rank file the tables were built from
};

/// Serializes `tables`, built from the rank file whose sha256 is `source_sha256` (64 hex digits).
/// Throws TokenDataError when the tables do not have the shape the format needs.
std::string write_bpe_table_blob(const BpeTables& tables, std::string_view source_sha256);

/// Views `blob` in place after checking, in constant time, its magic, version, hash probe,
/// counts, total size and 8-byte alignment, and that the offsets and single-byte ranks fit the
/// counts. The sections' contents are trusted (the build made them from a checksummed file).
/// Throws TokenDataError naming `origin` and the problem.
BpeTableBlob view_bpe_table_blob(std::string_view blob, std::string_view origin);

}  // namespace attractor
