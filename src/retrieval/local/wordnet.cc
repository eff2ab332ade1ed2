#include "retrieval/local/wordnet.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <sstream>
#include <system_error>

namespace attractor::retrieval {

namespace {

constexpr std::array<WordNetPos, 4> kAllPos = {WordNetPos::kVerb, WordNetPos::kNoun, WordNetPos::kAdj,
                                               WordNetPos::kAdv};

/// The file name suffix of a part of speech ("index.verb", "verb.exc").
const char* pos_name(WordNetPos pos) {
  switch (pos) {
    case WordNetPos::kVerb: return "verb";
    case WordNetPos::kNoun: return "noun";
    case WordNetPos::kAdj: return "adj";
    case WordNetPos::kAdv: return "adv";
  }
  return "";
}

/// The letter that names a part of speech in a data file's pointers ("s" is a satellite adjective).
bool pointer_pos_is(std::string_view letter, WordNetPos pos) {
  switch (pos) {
    case WordNetPos::kVerb: return letter == "v";
    case WordNetPos::kNoun: return letter == "n";
    case WordNetPos::kAdj: return letter == "a" || letter == "s";
    case WordNetPos::kAdv: return letter == "r";
  }
  return false;
}

struct Detachment {
  std::string_view suffix;
  std::string_view ending;
};

/// WordNet's suffix detachment rules ("morphy"): an inflected ending and the base's ending.
std::vector<Detachment> detachments(WordNetPos pos) {
  switch (pos) {
    case WordNetPos::kNoun:
      return {{"s", ""},      {"ses", "s"},   {"xes", "x"},   {"zes", "z"},
              {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}};
    case WordNetPos::kVerb:
      return {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}};
    case WordNetPos::kAdj: return {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}};
    case WordNetPos::kAdv: return {};
  }
  return {};
}

/// The first space-separated field of an index or exception line (empty for the licence lines,
/// which start with spaces and so sort before every lemma).
std::string_view first_field(std::string_view line) { return line.substr(0, line.find(' ')); }

/// A data file's word made a lemma: lowercase, without an adjective's position marker ("(p)").
std::string lemma_of(std::string word) {
  if (auto paren = word.find('('); paren != std::string::npos) word.resize(paren);
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return word;
}

/// True when `lemma` is a letter followed by ASCII letters, digits and `_`: a word code can hold.
bool searchable(std::string_view lemma) {
  return !lemma.empty() && lemma[0] >= 'a' && lemma[0] <= 'z' && std::all_of(lemma.begin(), lemma.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::multimap<std::string, std::string> read_exceptions(const std::filesystem::path& path) {
  std::multimap<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string inflected, base;
    fields >> inflected;
    while (fields >> base) out.emplace(inflected, base);
  }
  return out;
}

/// Appends `word` to `out` unless it was seen.
void add_once(std::vector<std::string>& out, std::set<std::string>& seen, const std::string& word) {
  if (seen.insert(word).second) out.push_back(word);
}

}  // namespace

const std::vector<std::filesystem::path>& wordnet_system_dirs() {
  static const std::vector<std::filesystem::path> dirs = {"/usr/share/wordnet"};
  return dirs;
}

std::unique_ptr<WordNet> WordNet::open(const std::filesystem::path& dir) {
  std::unique_ptr<WordNet> db(new WordNet());
  for (WordNetPos pos : kAllPos) {
    const std::string name = pos_name(pos);
    Files& f = db->files(pos);
    std::error_code ec;
    f.index_size = std::filesystem::file_size(dir / ("index." + name), ec);
    if (ec || !std::filesystem::is_regular_file(dir / ("data." + name), ec)) return nullptr;
    f.index.open(dir / ("index." + name), std::ios::binary);
    f.data.open(dir / ("data." + name), std::ios::binary);
    if (!f.index || !f.data) return nullptr;
    f.exceptions = read_exceptions(dir / (name + ".exc"));  // optional: adv.exc is tiny, any may be absent
  }
  return db;
}

std::unique_ptr<WordNet> WordNet::open_system() {
  for (const auto& dir : wordnet_system_dirs()) {
    if (auto db = open(dir)) return db;
  }
  return nullptr;
}

std::optional<std::string> WordNet::index_line(std::string_view lemma, WordNetPos pos) {
  Files& f = files(pos);
  // Invariant: the line of `lemma`, when present, starts in [lo, hi).
  std::uintmax_t lo = 0, hi = f.index_size;
  std::string line;
  while (lo < hi) {
    const std::uintmax_t mid = lo + (hi - lo) / 2;
    f.index.clear();
    std::uintmax_t start = mid;
    if (mid > 0) {  // the first line starting at or after mid
      f.index.seekg(static_cast<std::streamoff>(mid - 1));
      std::getline(f.index, line);
      start = mid - 1 + line.size() + 1;
    }
    if (start >= hi || !std::getline(f.index, line)) {
      hi = mid;
      continue;
    }
    const std::string_view key = first_field(line);
    if (key == lemma) return line;
    if (key < lemma) lo = start + line.size() + 1;
    else hi = mid;
  }
  return std::nullopt;
}

std::vector<long> WordNet::synset_offsets(std::string_view lemma, WordNetPos pos) {
  auto line = index_line(lemma, pos);
  if (!line) return {};
  // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
  std::istringstream fields(*line);
  std::string word, pos_letter, skip;
  size_t synsets = 0, pointers = 0;
  fields >> word >> pos_letter >> synsets >> pointers;
  for (size_t i = 0; i < pointers + 2; ++i) fields >> skip;
  std::vector<long> out;
  long offset = 0;
  while (out.size() < synsets && fields >> offset) out.push_back(offset);
  return out;
}

std::optional<WordNet::Synset> WordNet::synset(long offset, WordNetPos pos) {
  Files& f = files(pos);
  f.data.clear();
  f.data.seekg(offset);
  std::string line;
  if (!std::getline(f.data, line)) return std::nullopt;
  // synset_offset lex_filenum ss_type w_cnt(hex) [word lex_id...] p_cnt [symbol offset pos source_target...]
  std::istringstream fields(line);
  long own = 0;
  std::string lex_file, type, count, word, lex_id;
  fields >> own >> lex_file >> type >> count;
  if (own != offset || !fields) return std::nullopt;
  Synset out;
  const unsigned long words = std::stoul(count, nullptr, 16);
  for (unsigned long i = 0; i < words && fields >> word >> lex_id; ++i) out.lemmas.push_back(lemma_of(word));
  size_t pointers = 0;
  fields >> pointers;
  std::string symbol, target_pos, source_target;
  long target = 0;
  for (size_t i = 0; i < pointers && fields >> symbol >> target >> target_pos >> source_target; ++i) {
    if (symbol == "@" && pointer_pos_is(target_pos, pos)) out.hypernyms.push_back(target);
  }
  return out;
}

std::vector<std::string> WordNet::base_forms(std::string_view word, WordNetPos pos) {
  const std::string whole(word);
  const size_t split = whole.find('_');
  const std::string head = whole.substr(0, split);
  const std::string rest = split == std::string::npos ? "" : whole.substr(split);
  std::vector<std::string> candidates = {whole};
  const auto& exceptions = files(pos).exceptions;
  for (const std::string& key : {whole, head}) {
    for (auto [it, end] = exceptions.equal_range(key); it != end; ++it) {
      candidates.push_back(key == whole ? it->second : it->second + rest);
    }
  }
  for (const auto& [suffix, ending] : detachments(pos)) {
    if (head.size() > suffix.size() && head.ends_with(suffix)) {
      candidates.push_back(head.substr(0, head.size() - suffix.size()) + std::string(ending) + rest);
    }
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& c : candidates) {
    if (!seen.insert(c).second) continue;
    if (index_line(c, pos)) out.push_back(c);
  }
  return out;
}

std::vector<std::string> WordNet::synonyms(std::string_view word) {
  std::vector<std::string> out;
  std::set<std::string> seen = {std::string(word)};
  std::vector<std::pair<std::string, WordNetPos>> bases;
  for (WordNetPos pos : kAllPos) {
    for (auto& base : base_forms(word, pos)) {
      seen.insert(base);
      bases.emplace_back(std::move(base), pos);
    }
  }
  auto add_lemmas = [&](const Synset& s) {
    for (const auto& lemma : s.lemmas) {
      if (searchable(lemma)) add_once(out, seen, lemma);
    }
  };
  for (const auto& [base, pos] : bases) {
    auto offsets = synset_offsets(base, pos);
    offsets.resize(std::min(offsets.size(), kMaxSenses));
    for (long offset : offsets) {
      auto s = synset(offset, pos);
      if (!s) continue;
      add_lemmas(*s);
      if (pos != WordNetPos::kVerb) continue;
      for (long h : s->hypernyms) {
        if (auto parent = synset(h, pos)) add_lemmas(*parent);
      }
    }
  }
  if (out.size() > kMaxSynonyms) out.resize(kMaxSynonyms);
  return out;
}

}  // namespace attractor::retrieval
