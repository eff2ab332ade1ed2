#pragma once
/// \file
/// "Did you mean": the known name closest to a misspelt one, by edit distance.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// Names longer than this are never matched: a typo is suggested for ids and keywords, and the
/// quadratic distance of two long values would cost more than the hint is worth.
inline constexpr std::size_t kLongestMatchedName = 64;

/// Optimal string alignment distance (insertions, deletions, substitutions, adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `name` within `max_distance` (ties: first in `candidates`), or "".
std::string closest_match(std::string_view name, const std::vector<std::string>& candidates, std::size_t max_distance);

/// Candidate names grouped by length, for many lookups against one large list (the node ids of a
/// graph). Lookups share a fixed budget of distance-table cells; once it is spent every lookup
/// returns "", so a graph with a misspelling on every node still lints in linear time. Answers
/// are deterministic: the same lookups in the same order give the same suggestions.
class SpellingIndex {
 public:
  /// Default budget: about a tenth of a second of distance computations.
  static constexpr std::size_t kDefaultBudgetCells = 50'000'000;

  explicit SpellingIndex(const std::vector<std::string>& names, std::size_t budget_cells = kDefaultBudgetCells);

  /// As closest_match over the names `accept` allows (all when empty); "" once the budget is spent.
  std::string closest(std::string_view name, std::size_t max_distance,
                      const std::function<bool(const std::string&)>& accept = {});

  /// Cells of the budget not yet spent.
  std::size_t budget_left() const { return budget_; }

 private:
  struct Entry {
    std::size_t order;
    std::string name;
  };
  std::vector<std::vector<Entry>> by_length_;
  std::size_t budget_;
};

}  // namespace attractor
