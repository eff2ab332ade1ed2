#pragma once
/// \file
/// The search preambles use to decide how many entries to drop: the smallest drop count whose
/// text fits the token budget. Counting tokens is the expensive part, so the search interpolates
/// on the measured counts (a text shrinks by roughly the same number of tokens per dropped entry)
/// instead of bisecting, and falls back to bisection whenever interpolation stops closing in.
/// For a non-increasing cost it returns exactly what bisection or a linear scan would.

#include <cstddef>
#include <functional>
#include <optional>

namespace attractor {

/// The smallest `d` in [lo, hi] with `cost(d) <= budget`, given that `cost` does not increase
/// with `d` and `cost(hi) <= budget` (the caller checks the latter). `cost(d)` for `d < lo` is
/// never asked. `first_step_cost` is a guess of how much one more dropped entry saves, used
/// for the first probe below `hi` unless `first_probe` names it (for example the answer of a
/// similar earlier search). For a non-increasing cost, hints change how many counts the search
/// takes, never its result. Each `d` is evaluated at most once.
std::size_t smallest_within_budget(std::size_t lo, std::size_t hi, std::size_t budget,
                                   const std::function<std::size_t(std::size_t)>& cost, double first_step_cost = 4.0,
                                   std::optional<std::size_t> first_probe = std::nullopt);

}  // namespace attractor
