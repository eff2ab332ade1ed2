#pragma once
// Deterministic synthetic C# + SQL repository for bench/retrieval.

#include <string>
#include <vector>

namespace attractor::bench {

/// Writes `files` source files under `root` (80% C# services/repositories/entities with Dapper
/// queries and calls between classes, 20% SQL tables/views/procedures); returns a list of query
/// strings drawn from the generated identifiers and words, for latency measurements.
std::vector<std::string> generate_repository(const std::string& root, int files, int queries);

}  // namespace attractor::bench
