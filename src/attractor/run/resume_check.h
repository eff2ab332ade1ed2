#pragma once
/// \file
/// Checks that a saved checkpoint can be continued with the pipeline graph `attractor resume` is
/// about to run: every node it names must exist in the graph. A checkpoint that does not fit is
/// refused (exit 2) before anything in the run directory is written.

#include <optional>
#include <string>

#include "attractor/run/checkpoint.h"
#include "attractor/model/graph.h"

namespace attractor {

/// The first problem found, as a one-line message naming the node and the checkpoint field
/// (`next_node`, `current_node`, `completed_nodes`, `node_outcomes`, `visit_counts`,
/// `node_retries`), or nullopt when the checkpoint fits the graph. `state` must be one of
/// "running", "success", "fail".
std::optional<std::string> check_checkpoint_against_graph(const Checkpoint& checkpoint, const Graph& graph);

}  // namespace attractor
