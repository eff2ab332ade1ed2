#include "retrieval/backend.h"

#include <algorithm>
#include <cctype>

#include "retrieval/retrieval_module.h"

namespace attractor::retrieval {

std::string_view to_string(SearchType type) {
  switch (type) {
    case SearchType::kSemantic: return "semantic";
    case SearchType::kBm25: return "bm25";
    case SearchType::kHybrid: return "hybrid";
  }
  return "bm25";
}

std::optional<SearchType> parse_search_type(std::string_view text) {
  if (text == "semantic") return SearchType::kSemantic;
  if (text == "bm25") return SearchType::kBm25;
  if (text == "hybrid") return SearchType::kHybrid;
  return std::nullopt;
}

std::optional<MatchOperator> parse_match_operator(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "and") return MatchOperator::kAnd;
  if (lower == "or") return MatchOperator::kOr;
  return std::nullopt;
}

std::unique_ptr<IRetrievalBackend> make_retrieval_backend(std::string_view kind, const std::string& index_dir) {
  return RetrievalModule::get().make_backend(kind, index_dir);
}

}  // namespace attractor::retrieval
