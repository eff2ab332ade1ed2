#pragma once
/// \file
/// Reading `.tiktoken` rank files: one `<base64 token bytes> <rank>` line per token, ranks
/// 0, 1, 2, ... in order.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/tokens/token_counter.h"

namespace attractor {

/// Mergeable tokens of one encoding, indexed by rank.
struct RankTable {
  std::string bytes;                   ///< every token's bytes, concatenated in rank order
  std::vector<std::uint32_t> offsets;  ///< token r is bytes[offsets[r], offsets[r + 1])

  std::size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::string_view token(TokenId rank) const {
    return std::string_view(bytes).substr(offsets[rank], offsets[rank + 1] - offsets[rank]);
  }
};

/// Parses rank-file text. `origin` names the source in error messages. Throws TokenDataError
/// (with origin and line number) on a malformed line, invalid base64, an empty token or a rank
/// that is not the line's index.
RankTable parse_tiktoken(std::string_view text, std::string_view origin);

/// Reads and parses a rank file. When `expected_sha256` is not empty the file's SHA-256 must match.
/// Throws TokenDataError naming the path when the file is missing, unreadable or corrupt.
RankTable load_tiktoken_file(const std::filesystem::path& path, std::string_view expected_sha256 = {});

/// Decodes standard base64 with `=` padding; returns false on any invalid character or length.
bool decode_base64(std::string_view text, std::string& out);

}  // namespace attractor
