#pragma once
/// \file
/// Deterministic generator of large, valid pipelines for benchmarks: `nodes` nodes, about twice as
/// many edges, attributes on every node and edge, subgraphs with labels every 100 nodes.

#include <cstddef>
#include <string>

namespace attractor::bench {

/// DOT text of a valid pipeline with `nodes` nodes (>= 4) and 2 * nodes - 4 edges.
std::string generate_pipeline(std::size_t nodes);

}  // namespace attractor::bench
