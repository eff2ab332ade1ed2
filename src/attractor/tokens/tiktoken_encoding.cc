#include "attractor/tokens/tiktoken_encoding.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "attractor/base/sha256.h"
#include "attractor/tokens/bpe_table_blob.h"
#include "attractor/tokens/pinned_rank_files.h"
#include "attractor/tokens/tiktoken_file.h"
#include "attractor/base/utf8.h"

namespace attractor {

namespace {

/// Pieces longer than this are merged every time rather than cached.
constexpr std::size_t kMaxCachedPieceBytes = 128;

std::atomic<std::uint64_t> next_instance_id{1};

}  // namespace

const std::vector<EncodingSpec>& encoding_specs() {
  // Special-token ids are those of tiktoken's definitions of these encodings.
  // The rank files' names, sums and counts are pinned in pinned_rank_files.h, which the
  // build-time table generator reads too.
  constexpr const PinnedRankFile& o200k = kPinnedRankFiles[0];
  constexpr const PinnedRankFile& cl100k = kPinnedRankFiles[1];
  static_assert(o200k.encoding == "o200k_base" && cl100k.encoding == "cl100k_base");
  static const std::vector<EncodingSpec> specs = {
      {o200k.encoding,
       o200k.file_name,
       o200k.sha256,
       o200k.rank_count,
       &o200k_split_pattern,
       {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}},
      {cl100k.encoding,
       cl100k.file_name,
       cl100k.sha256,
       cl100k.rank_count,
       &cl100k_split_pattern,
       {{"<|endoftext|>", 100257},
        {"<|fim_prefix|>", 100258},
        {"<|fim_middle|>", 100259},
        {"<|fim_suffix|>", 100260},
        {"<|endofprompt|>", 100276}}},
  };
  return specs;
}

const EncodingSpec* find_encoding_spec(std::string_view name) {
  for (const auto& spec : encoding_specs()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

TiktokenEncoding::TiktokenEncoding(const EncodingSpec& spec, RankTable ranks)
    : TiktokenEncoding(spec, BytePairEncoder(std::move(ranks))) {}

TiktokenEncoding::TiktokenEncoding(const EncodingSpec& spec, BytePairEncoder bpe)
    : spec_(spec), bpe_(std::move(bpe)), pretokenizer_(spec.split_pattern()), instance_id_(next_instance_id++) {
  if (bpe_.size() != spec.rank_count) {
    throw TokenDataError(fmt::format("{}: {} ranks where {} were expected", spec.name, bpe_.size(), spec.rank_count));
  }
}

std::unique_ptr<TiktokenEncoding> TiktokenEncoding::load(const EncodingSpec& spec, const std::filesystem::path& path) {
  RankTable ranks = load_tiktoken_file(path, spec.file_sha256);
  if (ranks.size() != spec.rank_count) {
    throw TokenDataError(fmt::format("corrupt token rank file {}: {} ranks where {} were expected", path.string(),
                                     ranks.size(), spec.rank_count));
  }
  return std::make_unique<TiktokenEncoding>(spec, std::move(ranks));
}

std::unique_ptr<TiktokenEncoding> TiktokenEncoding::load_text(const EncodingSpec& spec, std::string_view text,
                                                              std::string_view origin) {
  if (std::string actual = sha256_hex(text); actual != spec.file_sha256) {
    throw TokenDataError(
        fmt::format("corrupt token rank data {}: sha256 {} but expected {}", origin, actual, spec.file_sha256));
  }
  RankTable ranks = parse_tiktoken(text, origin);
  if (ranks.size() != spec.rank_count) {
    throw TokenDataError(fmt::format("corrupt token rank data {}: {} ranks where {} were expected", origin,
                                     ranks.size(), spec.rank_count));
  }
  return std::make_unique<TiktokenEncoding>(spec, std::move(ranks));
}

std::unique_ptr<TiktokenEncoding> TiktokenEncoding::load_tables(const EncodingSpec& spec, std::string_view blob,
                                                                std::string_view origin) {
  const BpeTableBlob tables = view_bpe_table_blob(blob, origin);
  if (tables.source_sha256 != spec.file_sha256) {
    throw TokenDataError(fmt::format("corrupt token tables {}: built from a rank file with sha256 {} but {} is pinned",
                                     origin, tables.source_sha256, spec.file_sha256));
  }
  if (tables.tables.size() != spec.rank_count) {
    throw TokenDataError(fmt::format("corrupt token tables {}: {} ranks where {} were expected", origin,
                                     tables.tables.size(), spec.rank_count));
  }
  return std::make_unique<TiktokenEncoding>(spec, BytePairEncoder(tables.tables));
}

PieceCache& TiktokenEncoding::thread_cache() const {
  thread_local std::unordered_map<std::uint64_t, PieceCache> caches;
  return caches[instance_id_];
}

template <class Sink>
void TiktokenEncoding::encode_ordinary(std::string_view text, Sink& sink) const {
  PieceCache& cache = thread_cache();
  thread_local std::vector<TokenId> merged;
  pretokenizer_.split(text, [&](std::string_view piece) {
    const TokenId whole = bpe_.rank_of(piece);
    if (whole != BytePairEncoder::kNoRank) {
      sink(&whole, 1);
      return;
    }
    const bool cacheable = piece.size() <= kMaxCachedPieceBytes;
    if (cacheable) {
      if (const std::vector<TokenId>* cached = cache.find(piece)) {
        sink(cached->data(), cached->size());
        return;
      }
    }
    merged.clear();
    bpe_.merge_piece(piece, merged);
    sink(merged.data(), merged.size());
    if (cacheable) cache.insert(piece, merged);
  });
  if (merged.capacity() > (1u << 16)) std::vector<TokenId>().swap(merged);
}

template <class Sink>
void TiktokenEncoding::encode_valid(std::string_view text, const AllowedSpecial& allowed, Sink& sink) const {
  struct Candidate {
    std::string_view token;
    TokenId id;
    std::size_t next;  ///< next occurrence at or after the scan position (npos: none left)
  };
  std::vector<Candidate> candidates;
  if (allowed.any()) {
    for (const auto& [token, id] : spec_.special_tokens) {
      if (allowed.allows(token)) candidates.push_back({token, id, 0});
    }
  }
  if (candidates.empty()) {
    encode_ordinary(text, sink);
    return;
  }
  for (auto& c : candidates) c.next = text.find(c.token);
  std::size_t pos = 0;
  for (;;) {
    const Candidate* best = nullptr;
    for (auto& c : candidates) {
      if (c.next != std::string_view::npos && c.next < pos) c.next = text.find(c.token, pos);
      if (c.next != std::string_view::npos && (!best || c.next < best->next)) best = &c;
    }
    if (!best) break;
    encode_ordinary(text.substr(pos, best->next - pos), sink);
    sink(&best->id, 1);
    pos = best->next + best->token.size();
  }
  encode_ordinary(text.substr(pos), sink);
}

std::vector<TokenId> TiktokenEncoding::encode(std::string_view text, const AllowedSpecial& allowed) const {
  std::vector<TokenId> out;
  out.reserve(text.size() / 4 + 4);
  auto sink = [&out](const TokenId* ids, std::size_t n) { out.insert(out.end(), ids, ids + n); };
  if (is_valid_utf8(text)) {
    encode_valid(text, allowed, sink);
  } else {
    encode_valid(replace_invalid_utf8(text), allowed, sink);
  }
  return out;
}

std::size_t TiktokenEncoding::count(std::string_view text, const AllowedSpecial& allowed) const {
  std::size_t counted = 0;
  auto sink = [&counted](const TokenId*, std::size_t n) { counted += n; };
  if (is_valid_utf8(text)) {
    encode_valid(text, allowed, sink);
  } else {
    encode_valid(replace_invalid_utf8(text), allowed, sink);
  }
  return counted;
}

std::string TiktokenEncoding::decode(std::span<const TokenId> ids) const {
  std::string out;
  for (TokenId id : ids) {
    if (id < bpe_.size()) {
      out.append(bpe_.token_bytes(id));
      continue;
    }
    auto it = std::find_if(spec_.special_tokens.begin(), spec_.special_tokens.end(),
                           [id](const auto& entry) { return entry.second == id; });
    if (it == spec_.special_tokens.end()) {
      throw std::out_of_range(fmt::format("token id {} is not part of {}", id, spec_.name));
    }
    out.append(it->first);
  }
  return out;
}

}  // namespace attractor
