#pragma once
/// \file
/// How often one node may be entered in a run (docs/decisions.md, "visit cap"): node attribute
/// `max_visits`, else graph attribute `default_max_visits`, else kDefaultMaxVisits. 0 means no
/// limit. The run-level guard `max_node_executions` applies on top of it.

#include <cstdint>
#include <string>

#include "attractor/model/graph.h"

namespace attractor {

/// Visits per node when neither the node nor the graph sets a limit: enough for review/fix loops,
/// small enough that an LLM loop whose exit condition never holds stops after a bounded bill.
inline constexpr std::int64_t kDefaultMaxVisits = 20;

struct VisitLimit {
  std::int64_t limit = kDefaultMaxVisits;  ///< 0 = unlimited
  std::string source;                      ///< "max_visits", "default_max_visits" or "" (the built-in default)
};

/// The limit that applies to `node` in `graph`.
VisitLimit visit_limit(const Graph& graph, const NodeData& node);

/// The failure reason of a node entered once more than `limit` allows, e.g.
/// "node `loop` exceeded max_visits=3 (visit 4)".
std::string visit_limit_message(const std::string& node_id, const VisitLimit& limit, std::int64_t visit);

}  // namespace attractor
