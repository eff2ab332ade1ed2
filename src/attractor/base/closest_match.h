#pragma once
/// \file
/// "Did you mean": the known name closest to a misspelt one, by edit distance.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// Optimal string alignment distance (insertions, deletions, substitutions, adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `name` within `max_distance` (ties: first in `candidates`), or "".
std::string closest_match(std::string_view name, const std::vector<std::string>& candidates, std::size_t max_distance);

}  // namespace attractor
