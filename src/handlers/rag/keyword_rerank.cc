#include "handlers/rag/keyword_rerank.h"

#include <algorithm>
#include <array>
#include <set>
#include <unordered_set>

namespace attractor {

namespace {

bool is_token_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

bool is_stop_word(std::string_view word) {
  static constexpr std::array<std::string_view, 34> kStop = {
      "a",    "an",  "and",  "are",  "as",    "at",    "be",  "by",  "can",  "do",   "does", "for",
      "from", "how", "in",   "is",   "it",    "me",    "of",  "on",  "or",   "show", "that", "the",
      "this", "to",  "what", "when", "where", "which", "who", "why", "with", "find"};
  return std::find(kStop.begin(), kStop.end(), word) != kStop.end();
}

}  // namespace

std::vector<std::string> exact_tokens(std::string_view text, bool drop_stop_words) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_token_byte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    std::string token;
    while (j < text.size() && is_token_byte(static_cast<unsigned char>(text[j]))) {
      char c = text[j++];
      token += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    i = j;
    if (token.size() < 2 || (drop_stop_words && is_stop_word(token))) continue;
    if (seen.insert(token).second) out.push_back(std::move(token));
  }
  return out;
}

std::vector<retrieval::SearchHit> keyword_rerank(std::string_view query,
                                                 const std::vector<retrieval::SearchHit>& candidates,
                                                 const std::map<std::string, std::string>& texts, int top_k) {
  std::vector<std::string> query_tokens = exact_tokens(query, true);
  struct Scored {
    std::size_t order;
    int evidence;
    const retrieval::SearchHit* hit;
  };
  std::vector<Scored> scored;
  std::set<std::string> ids;
  for (const auto& hit : candidates) {
    if (!ids.insert(hit.id).second) continue;
    std::unordered_set<std::string> tokens;
    for (auto& t : exact_tokens(hit.id)) tokens.insert(std::move(t));
    if (auto it = texts.find(hit.id); it != texts.end()) {
      for (auto& t : exact_tokens(it->second)) tokens.insert(std::move(t));
    }
    int evidence = 0;
    for (const auto& t : query_tokens) evidence += tokens.count(t) ? 1 : 0;
    scored.push_back({scored.size(), evidence, &hit});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.evidence != b.evidence) return a.evidence > b.evidence;
    return a.order < b.order;
  });
  std::vector<retrieval::SearchHit> out;
  for (const auto& s : scored) {
    if (static_cast<int>(out.size()) >= top_k) break;
    out.push_back({s.hit->id, static_cast<double>(s.evidence), static_cast<int>(out.size()) + 1});
  }
  return out;
}

}  // namespace attractor
