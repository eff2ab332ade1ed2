#include "attractor/base/closest_match.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace attractor {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t m = b.size();
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

namespace {

std::size_t length_gap(std::size_t a, std::size_t b) { return a > b ? a - b : b - a; }

}  // namespace

std::string closest_match(std::string_view name, const std::vector<std::string>& candidates, std::size_t max_distance) {
  if (name.size() > kLongestMatchedName) return "";
  std::string best;
  std::size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    if (length_gap(candidate.size(), name.size()) >= best_distance) continue;
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

SpellingIndex::SpellingIndex(const std::vector<std::string>& names, std::size_t budget_cells)
    : by_length_(kLongestMatchedName + 1), budget_(budget_cells) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].size() <= kLongestMatchedName) by_length_[names[i].size()].push_back({i, names[i]});
  }
}

std::string SpellingIndex::closest(std::string_view name, std::size_t max_distance,
                                   const std::function<bool(const std::string&)>& accept) {
  if (name.size() > kLongestMatchedName) return "";
  const Entry* best = nullptr;
  std::size_t best_distance = max_distance + 1;
  const std::size_t low = name.size() > max_distance ? name.size() - max_distance : 0;
  const std::size_t high = std::min(kLongestMatchedName, name.size() + max_distance);
  for (std::size_t length = low; length <= high; ++length) {
    if (length_gap(length, name.size()) > max_distance) continue;
    for (const Entry& entry : by_length_[length]) {
      if (accept && !accept(entry.name)) continue;
      const std::size_t cells = (name.size() + 1) * (length + 1);
      if (cells > budget_) {
        budget_ = 0;
        return "";
      }
      budget_ -= cells;
      const std::size_t distance = edit_distance(name, entry.name);
      if (distance < best_distance || (distance == best_distance && best && entry.order < best->order)) {
        best_distance = distance;
        best = &entry;
      }
    }
  }
  return best && best_distance <= max_distance ? best->name : "";
}

}  // namespace attractor
