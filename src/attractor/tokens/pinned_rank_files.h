#pragma once
/// \file
/// The rank files the build pins (npm gpt-tokenizer@4.0.0): their names, sha256 sums and token
/// counts. Header-only, so both the library and the build-time table generator read the same facts.

#include <array>
#include <cstddef>
#include <string_view>

namespace attractor {

/// One pinned `.tiktoken` rank file.
struct PinnedRankFile {
  std::string_view encoding;   ///< e.g. "o200k_base"
  std::string_view file_name;  ///< e.g. "o200k_base.tiktoken"
  std::string_view sha256;     ///< lower-case hex sum of the published file
  std::size_t rank_count;      ///< number of mergeable tokens in it
};

/// Every pinned rank file, default encoding first.
inline constexpr std::array<PinnedRankFile, 2> kPinnedRankFiles = {{
    {"o200k_base", "o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", 199998},
    {"cl100k_base", "cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 100256},
}};

/// The pinned rank file of `encoding`, or nullptr.
constexpr const PinnedRankFile* find_pinned_rank_file(std::string_view encoding) {
  for (const auto& file : kPinnedRankFiles) {
    if (file.encoding == encoding) return &file;
  }
  return nullptr;
}

}  // namespace attractor
