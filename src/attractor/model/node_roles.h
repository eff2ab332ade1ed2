#pragma once
/// \file
/// How a pipeline's entry and exit nodes are recognized (spec §7.2, §2.8): shared by lint and the
/// engine so both agree.

#include <optional>
#include <string_view>
#include <vector>

#include "attractor/model/graph.h"

namespace attractor {

/// Start nodes: every node with shape=Mdiamond; when there is none, the nodes whose id is `start` or
/// `Start`. A valid pipeline has exactly one. Insertion order.
std::vector<Vertex> find_start_nodes(const Graph& graph);

/// Terminal nodes: every node with shape=Msquare; when there is none, the nodes whose id is `exit` or
/// `end`. A valid pipeline has exactly one. Insertion order.
std::vector<Vertex> find_terminal_nodes(const Graph& graph);

/// The start node: the first of find_start_nodes; nullopt when absent.
std::optional<Vertex> find_start_node(const Graph& graph);

/// True for exit nodes: the terminal nodes above, or any node whose type is "exit".
bool is_terminal_node(const Graph& graph, const NodeData& node);

}  // namespace attractor
