#pragma once
/// \file
/// Context fidelity (spec §5.4, docs/fidelity.md): which mode a stage runs in and which conversation
/// thread it belongs to.
///
/// Fidelity precedence: the `fidelity` of the edge the traversal took, the node's `fidelity`, the
/// graph's `default_fidelity`, then `compact`. Thread precedence (used by `full` stages): node
/// `thread_id`, edge `thread_id`, the graph-level default thread (graph attribute
/// `default_thread_id`), the node's first class (a node inside a labelled
/// subgraph gets the class derived from the label, after its own `class` entries), then the id of
/// the previously executed node.

#include <string>
#include <string_view>
#include <vector>

#include "attractor/model/graph.h"

namespace attractor {

inline constexpr std::string_view kFidelityFull = "full";
inline constexpr std::string_view kFidelityTruncate = "truncate";
inline constexpr std::string_view kFidelityCompact = "compact";
inline constexpr std::string_view kFidelitySummaryLow = "summary:low";
inline constexpr std::string_view kFidelitySummaryMedium = "summary:medium";
inline constexpr std::string_view kFidelitySummaryHigh = "summary:high";
/// The mode used when neither edge, node nor graph sets one.
inline constexpr std::string_view kDefaultFidelity = kFidelityCompact;
/// The mode the first `full` stage after a resume runs in (its session was lost).
inline constexpr std::string_view kResumeFidelity = kFidelitySummaryHigh;

/// The six valid modes: full, truncate, compact, summary:low, summary:medium, summary:high.
const std::vector<std::string>& fidelity_modes();
/// True for one of `fidelity_modes()` (exact spelling).
bool is_valid_fidelity(std::string_view mode);
/// The mode a stage runs in when `mode` was resolved for it: `mode` itself when valid, else
/// `compact` (lint rule `fidelity_valid` warns about invalid values).
std::string effective_fidelity(std::string_view mode);

/// Edge `fidelity` (when `edge` is not null and sets one), else node `fidelity`, else graph
/// `default_fidelity`, else `compact`. Values are returned as written (lint reports invalid ones).
std::string resolve_fidelity(const EdgeData* edge, const NodeData& node, const Graph& graph);

/// Node `thread_id`, else edge `thread_id`, else graph `default_thread_id`, else the node's first
/// class, else `previous_node`.
std::string resolve_thread_id(const EdgeData* edge, const NodeData& node, const Graph& graph,
                              const std::string& previous_node);

/// The node-level fidelity a stage falls back to when the incoming edge sets none (node
/// `fidelity`, else graph `default_fidelity`, else `compact`).
std::string node_fallback_fidelity(const NodeData& node, const Graph& graph);

/// Resolved fidelity facts of one stage execution, handed to the handler through StageEnv.
struct StageFidelity {
  std::string mode;                 ///< the mode the stage runs in
  std::string thread_id;            ///< its thread key (meaningful under `full`)
  std::string previous_node;        ///< the node executed before it ("" for the first)
  bool degraded_on_resume = false;  ///< `full` replaced by `summary:high` after a resume
};

/// resolve_fidelity and resolve_thread_id together.
StageFidelity resolve_stage_fidelity(const EdgeData* edge, const NodeData& node, const Graph& graph,
                                     const std::string& previous_node);

}  // namespace attractor
