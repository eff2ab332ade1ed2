#include <algorithm>
#include <map>

#include "attractor/check/lint_rules.h"

/// \file
/// Spelling suggestions for the attribute_spelling rule: an attribute nobody reads is usually a
/// typo. Names within edit distance 2 (1 for names shorter than 5 characters) of a known attribute
/// get a warning with the likely intended name. Known names: known_attribute_names (attributes.h),
/// i.e. the attributes of every node, edge and graph, those of the handler descriptions and the
/// Graphviz presentation attributes.

namespace attractor::lint_detail {
namespace {

/// Names people write for an attribute that is spelt differently here (edit distance would
/// suggest the wrong thing, e.g. `command` -> `comment`).
const std::map<std::string_view, std::string, std::less<>>& aliases() {
  static const std::map<std::string_view, std::string, std::less<>> table = {
      {"cmd", "tool_command"},        {"command", "tool_command"}, {"model", "llm_model"},
      {"provider", "llm_provider"},   {"retries", "max_retries"},  {"max_retry", "max_retries"},
      {"effort", "reasoning_effort"}, {"retry", "retry_target"}};
  return table;
}

}  // namespace

const std::string& SpellingChecker::suggestion(std::string_view name) {
  auto it = cache_.find(name);
  if (it != cache_.end()) return it->second;
  std::string guess;
  if (auto alias = aliases().find(name); alias != aliases().end()) {
    guess = alias->second;
  } else if (!std::binary_search(known_.begin(), known_.end(), name)) {
    guess = closest_match(name, known_, name.size() < 5 ? 1 : 2);
  }
  return cache_.emplace(name, std::move(guess)).first->second;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string closest_match(std::string_view name, const std::vector<std::string>& candidates,
                          std::size_t max_distance) {
  std::string best;
  std::size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t length_gap = candidate.size() > name.size() ? candidate.size() - name.size()
                                                                    : name.size() - candidate.size();
    if (length_gap >= best_distance) continue;
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace attractor::lint_detail
