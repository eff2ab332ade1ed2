#pragma once
/// \file
/// The latency percentile both retrieval benches report.

#include <algorithm>
#include <cmath>
#include <vector>

namespace attractor::bench {

/// The `p`-th percentile (nearest rank) of `values`; 0 when empty.
inline double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace attractor::bench
