#pragma once
/// \file
/// A complete tiktoken encoding: special tokens, pre-tokenizer and byte-pair encoder behind the
/// `TokenCounter` interface, plus the fixed facts of the supported encodings.

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attractor/tokens/bpe.h"
#include "attractor/tokens/pretokenizer.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {

/// Fixed facts of one encoding.
struct EncodingSpec {
  std::string_view name;
  std::string_view file_name;    ///< rank file name, e.g. "o200k_base.tiktoken"
  std::string_view file_sha256;  ///< pinned sum of the published rank file
  std::size_t rank_count;        ///< number of mergeable tokens in that file
  std::string (*split_pattern)();
  std::vector<std::pair<std::string_view, TokenId>> special_tokens;
};

/// The spec of a supported encoding, or nullptr.
const EncodingSpec* find_encoding_spec(std::string_view name);
/// All supported encodings, default first.
const std::vector<EncodingSpec>& encoding_specs();

/// Byte-pair encoding compatible with tiktoken. Special tokens are found anywhere in the text
/// (leftmost first) when allowed, as tiktoken does.
class TiktokenEncoding final : public TokenCounter {
 public:
  /// Builds from already-loaded ranks. Throws TokenDataError when the rank count differs from
  /// the spec's or the ranks are inconsistent.
  TiktokenEncoding(const EncodingSpec& spec, RankTable ranks);
  /// Uses a ready encoder. Throws TokenDataError when its rank count differs from the spec's.
  TiktokenEncoding(const EncodingSpec& spec, BytePairEncoder bpe);

  /// Loads the rank file at `path`, checking its pinned sha256. Throws TokenDataError.
  static std::unique_ptr<TiktokenEncoding> load(const EncodingSpec& spec, const std::filesystem::path& path);
  /// Builds from rank-file `text` held in memory (the copy built into the binary), checking its
  /// pinned sha256; `origin` names it in errors. Throws TokenDataError.
  static std::unique_ptr<TiktokenEncoding> load_text(const EncodingSpec& spec, std::string_view text,
                                                     std::string_view origin);
  /// Uses the table blob `blob` (bpe_table_blob.h) in place, so it must outlive the encoding
  /// (the blobs built into the binary do). Checks the blob's header and that it was built from
  /// the spec's pinned rank file; `origin` names it in errors. Throws TokenDataError.
  static std::unique_ptr<TiktokenEncoding> load_tables(const EncodingSpec& spec, std::string_view blob,
                                                       std::string_view origin);

  std::string_view encoding_name() const override { return spec_.name; }
  std::vector<TokenId> encode(std::string_view text, const AllowedSpecial& allowed = {}) const override;
  std::size_t count(std::string_view text, const AllowedSpecial& allowed = {}) const override;
  std::string decode(std::span<const TokenId> ids) const override;

  const BytePairEncoder& bpe() const { return bpe_; }
  const Pretokenizer& pretokenizer() const { return pretokenizer_; }

 private:
  /// Encodes text without special tokens, passing each piece's tokens to `sink(ids, n)`.
  template <class Sink>
  void encode_ordinary(std::string_view text, Sink& sink) const;
  /// Encodes valid UTF-8, honouring `allowed`, passing tokens to `sink(ids, n)`.
  template <class Sink>
  void encode_valid(std::string_view text, const AllowedSpecial& allowed, Sink& sink) const;
  PieceCache& thread_cache() const;

  const EncodingSpec& spec_;
  BytePairEncoder bpe_;
  Pretokenizer pretokenizer_;
  std::uint64_t instance_id_;
};

}  // namespace attractor
