#pragma once
// A lexicon of fixed synonyms, the test double of the bm25 synonym expansion's WordNet: tests say
// which words it knows, and it counts the lookups.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/local/local_backend.h"
#include "retrieval/local/wordnet.h"

namespace attractor::retrieval::testing {

class FakeLexicon : public ILexicon {
 public:
  explicit FakeLexicon(std::map<std::string, std::vector<std::string>> words) : words_(std::move(words)) {}

  std::vector<std::string> synonyms(std::string_view word) override {
    lookups_.emplace_back(word);
    auto it = words_.find(std::string(word));
    return it == words_.end() ? std::vector<std::string>{} : it->second;
  }

  /// Every word asked for, in order.
  const std::vector<std::string>& lookups() const { return lookups_; }

 private:
  std::map<std::string, std::vector<std::string>> words_;
  std::vector<std::string> lookups_;
};

/// Backend options whose lexicon is a FakeLexicon of `words`.
inline LocalBackendOptions with_lexicon(std::map<std::string, std::vector<std::string>> words) {
  LocalBackendOptions o;
  o.lexicon = [words] { return std::make_unique<FakeLexicon>(words); };
  return o;
}

/// Backend options without a lexicon, as on a machine without WordNet.
inline LocalBackendOptions without_lexicon() {
  LocalBackendOptions o;
  o.lexicon = [] { return std::unique_ptr<ILexicon>(); };
  return o;
}

}  // namespace attractor::retrieval::testing
