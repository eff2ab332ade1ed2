#include "attractor/base/budget_search.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace attractor {

namespace {

std::size_t clamp_probe(double value, std::size_t low, std::size_t high) {
  if (!(value > static_cast<double>(low))) return low;
  if (value >= static_cast<double>(high)) return high;
  return static_cast<std::size_t>(value);
}

}  // namespace

std::size_t smallest_within_budget(std::size_t lo, std::size_t hi, std::size_t budget,
                                   const std::function<std::size_t(std::size_t)>& cost, double first_step_cost,
                                   std::optional<std::size_t> first_probe) {
  if (lo >= hi) return hi;
  // `fit` is the smallest drop count known to fit; `over` the largest known not to.
  std::size_t fit = hi;
  double fit_cost = static_cast<double>(cost(hi));
  bool bracketed = false;
  std::size_t over = 0;
  double over_cost = 0;
  double per_entry = first_step_cost > 0 ? first_step_cost : 1.0;
  unsigned creep = 0;
  // Interpolation gets as many probes as bisection would need; after that it bisects, so a cost
  // that is far from linear still takes O(log(hi - lo)) counts.
  int interpolations_left = 2 + static_cast<int>(std::bit_width(hi - lo));
  const double target = static_cast<double>(budget);
  while (true) {
    const std::size_t low = bracketed ? over + 1 : lo;
    if (low >= fit) return fit;
    std::size_t probe;
    if (interpolations_left-- <= 0) {
      probe = low + (fit - low) / 2;
    } else if (first_probe) {
      probe = std::clamp(*first_probe, low, fit - 1);
      first_probe.reset();
    } else if (!bracketed) {
      // Extrapolate below `fit`: every entry kept back costs about `per_entry` tokens.
      double steps = std::floor((target - fit_cost) / per_entry);
      steps = std::max(steps, static_cast<double>(std::size_t{1} << std::min(creep, 30u)));
      probe = clamp_probe(static_cast<double>(fit) - steps, low, fit - 1);
    } else {
      // Interpolate between the two bracket ends for the first count that fits.
      const double per = (over_cost - fit_cost) / static_cast<double>(fit - over);
      probe = clamp_probe(static_cast<double>(over) + std::ceil((over_cost - target) / per), low, fit - 1);
    }
    const double c = static_cast<double>(cost(probe));
    if (c <= target) {
      const double saved = (c - fit_cost) / static_cast<double>(fit - probe);
      if (!bracketed) {
        creep = (fit - probe <= 1) ? creep + 1 : 0;
        if (saved > 0) per_entry = saved;
      }
      fit = probe;
      fit_cost = c;
    } else {
      bracketed = true;
      over = probe;
      over_cost = c;
    }
  }
}

}  // namespace attractor
