#include "retrieval/local/query_expansion.h"

#include <algorithm>
#include <set>

namespace attractor::retrieval {

namespace {

/// A lexicon word as an FTS5 phrase ("step_down" -> "step down"), or "" when it holds anything but
/// ASCII lowercase letters, digits and `_` (so nothing reaches FTS5 query syntax).
std::string phrase_of(const std::string& word) {
  std::string out;
  for (char c : word) {
    if (c == '_') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      out.push_back(c);
    } else {
      return {};
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

/// The first kMaxSynonymsPerWord of `candidates` that the index holds and the query does not
/// already say, sorted.
std::vector<std::string> found_synonyms(const std::vector<std::string>& candidates,
                                        const std::set<std::string>& query_words, const PhraseCount& count) {
  std::vector<std::string> out;
  for (const auto& word : candidates) {
    if (out.size() >= kMaxSynonymsPerWord) break;
    const std::string phrase = phrase_of(word);
    if (phrase.empty() || query_words.count(word) || std::find(out.begin(), out.end(), word) != out.end()) continue;
    if (count(phrase) > 0) out.push_back(word);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> QueryExpansion::match_groups() const {
  std::vector<std::vector<std::string>> out;
  for (const auto& [word, found] : synonyms) {
    auto& group = out.emplace_back();
    for (const auto& s : found) group.push_back("\"" + phrase_of(s) + "\"");
  }
  return out;
}

QueryExpansion expand_query(const QueryAnalysis& analysis, ILexicon& lexicon, const PhraseCount& count,
                            int64_t index_nodes) {
  QueryExpansion out;
  // True when the query word or collocation `word` (`_` between words) is rare in the index.
  auto rare = [&](const std::string& word) { return count(phrase_of(word)) <= index_nodes / kRareWordShare; };
  std::set<std::string> query_words;
  for (const auto& w : analysis.words) query_words.insert(w.plain);
  const auto& words = analysis.words;
  const auto kept = std::count_if(words.begin(), words.end(), [](const QueryWord& w) { return w.kept; });
  if (static_cast<size_t>(kept) > kMaxWordsToExpand) return out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].plain.empty() || !words[i].kept) continue;
    if (i + 1 < words.size() && !words[i + 1].plain.empty()) {
      const std::string collocation = words[i].plain + "_" + words[i + 1].plain;
      auto pair = lexicon.synonyms(collocation);
      if (!pair.empty()) {
        if (!rare(collocation)) {
          ++i;
          continue;
        }
        auto found = found_synonyms(pair, query_words, count);
        if (!found.empty()) out.synonyms[words[i].plain + " " + words[i + 1].plain] = std::move(found);
        ++i;
        continue;
      }
    }
    if (words[i].plain.size() < kMinWordLength || !rare(words[i].plain)) continue;
    auto found = found_synonyms(lexicon.synonyms(words[i].plain), query_words, count);
    if (!found.empty()) out.synonyms[words[i].plain] = std::move(found);
  }
  return out;
}

}  // namespace attractor::retrieval
