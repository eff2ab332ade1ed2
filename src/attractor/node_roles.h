#pragma once
/// \file
/// How a pipeline's entry and exit nodes are recognized (spec §7.2, §2.8): shared by lint and the
/// engine so both agree.

#include <string_view>
#include <vector>

#include "attractor/graph.h"

namespace attractor {

/// Start nodes: every node with shape=Mdiamond; when there is none, the nodes whose id is `start` or
/// `Start`. A valid pipeline has exactly one. Insertion order.
std::vector<Vertex> find_start_nodes(const Graph& graph);

/// Terminal nodes: every node with shape=Msquare; when there is none, the nodes whose id is `exit` or
/// `end`. A valid pipeline has exactly one. Insertion order.
std::vector<Vertex> find_terminal_nodes(const Graph& graph);

}  // namespace attractor
