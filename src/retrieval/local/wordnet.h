#pragma once
/// \file
/// Synonyms for the bm25 query expansion of plain-English questions (docs/retrieval.md section
/// 4.1.1), read from the WordNet 3.0 database as Debian's `wordnet-base` installs it:
/// `index.{noun,verb,adj,adv}` (one line per lemma, sorted by lemma), `data.*` (one line per
/// synset, addressed by its byte offset) and the exception lists `*.exc`.
///
/// The index files are searched by bisection over byte offsets and the data files are read by
/// seeking to a synset's offset, so a lookup reads a few dozen lines, not the 28 MB database.
/// Only the exception lists (about 100 KB) are read whole, when the database is opened.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attractor::retrieval {

/// Where synonyms come from; the local backend asks one for each plain word of a bm25 query.
class ILexicon {
 public:
  virtual ~ILexicon() = default;
  /// Words close in meaning to `word` (lowercase; a collocation joins its words with `_`, as in
  /// "take_off"), most common sense first, without `word` itself; empty when the lexicon does
  /// not know `word`. Inflected forms are accepted ("quits", "took_off").
  virtual std::vector<std::string> synonyms(std::string_view word) = 0;
};

/// WordNet's parts of speech, in the order synonyms are collected.
enum class WordNetPos { kVerb, kNoun, kAdj, kAdv };

/// The fixed system folders searched for the database, in order (never a path from a request).
const std::vector<std::filesystem::path>& wordnet_system_dirs();

/// A WordNet 3.0 database on disk. Not thread-safe (the files are read through shared streams).
class WordNet : public ILexicon {
 public:
  /// The database in `dir`, or nullptr when one of its files is missing.
  static std::unique_ptr<WordNet> open(const std::filesystem::path& dir);
  /// The database in the first of wordnet_system_dirs() that holds one, or nullptr.
  static std::unique_ptr<WordNet> open_system();

  /// See ILexicon. Collects, for each base form of `word` in each part of speech, the other lemmas
  /// of its first kMaxSenses synsets and, for verbs, the lemmas of their direct hypernyms ("quit"
  /// in the sense "depart" -> "leave"); at most kMaxSynonyms, in that order.
  std::vector<std::string> synonyms(std::string_view word) override;

  /// The lemmas `word` may be an inflection of as `pos` that the index holds: itself, the
  /// exception list's bases ("took" -> "take") and the detachment rules' results ("quits" ->
  /// "quit"); for a collocation the rules apply to its first word ("taking_off" -> "take_off").
  std::vector<std::string> base_forms(std::string_view word, WordNetPos pos);

  /// The synset offsets of lemma `lemma` as `pos`, most frequent sense first; empty when absent.
  std::vector<long> synset_offsets(std::string_view lemma, WordNetPos pos);

  /// How many senses of a word are read, and how many synonyms are returned at most.
  static constexpr size_t kMaxSenses = 4;
  static constexpr size_t kMaxSynonyms = 16;

 private:
  struct Synset {
    std::vector<std::string> lemmas;
    std::vector<long> hypernyms;  // offsets in the same part of speech
  };
  struct Files {
    std::ifstream index;
    std::ifstream data;
    std::uintmax_t index_size = 0;
    std::multimap<std::string, std::string> exceptions;  // inflected form -> base form
  };

  WordNet() = default;
  std::optional<std::string> index_line(std::string_view lemma, WordNetPos pos);
  std::optional<Synset> synset(long offset, WordNetPos pos);
  Files& files(WordNetPos pos) { return files_[static_cast<size_t>(pos)]; }

  Files files_[4];
};

}  // namespace attractor::retrieval
