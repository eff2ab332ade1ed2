#pragma once
/// \file
/// Turns a pipeline graph into presentation DOT for Graphviz: shapes kept, labels shown, edge
/// labels and conditions visible, Graphviz presentation attributes passed through, pipeline-only
/// attributes dropped (the prompt becomes the node tooltip). Optionally overlays a run: node
/// colours by outcome and the path taken in bold.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attractor/check/handler_catalog.h"
#include "attractor/model/graph.h"

namespace attractor {

/// What a run did, as far as drawing is concerned.
struct RunOverlay {
  /// node id -> final status ("success", "partial_success", "retry", "fail", "skipped", "running").
  std::map<std::string, std::string> node_status;
  /// Nodes in execution order; consecutive pairs are the edges taken.
  std::vector<std::string> path;
  /// The node the run stopped at (drawn with a thick border), "" if none.
  std::string current_node;
};

/// Presentation DOT for `graph`; `overlay` may be null.
std::string render_dot(const Graph& graph, const HandlerCatalog& handlers, const RunOverlay* overlay = nullptr);

}  // namespace attractor
