#pragma once
/// \file
/// Condition evaluation against an outcome and the context (spec §10.4–10.5) and the five-step
/// edge selection of §3.3: condition match -> preferred label -> suggested next ids -> weight ->
/// lexical order of the target id.

#include <optional>
#include <string>
#include <string_view>

#include "attractor/model/context.h"
#include "attractor/model/graph.h"
#include "attractor/model/outcome.h"

namespace attractor {

/// §10.4: `outcome`, `preferred_label`, `context.X` (then `X`), else the bare key in the context.
std::string resolve_condition_key(std::string_view key, const Outcome& outcome, const Context& context);

/// Parses and evaluates `condition` (empty = true). An unparsable condition evaluates to false
/// (lint rejects such graphs before they run).
bool evaluate_edge_condition(std::string_view condition, const Outcome& outcome, const Context& context);

/// The accelerator key of a choice label (§4.6): `[K] Label`, `K) Label`, `K - Label`, else the
/// first character (upper-cased). "" for an empty label.
std::string accelerator_key(std::string_view label);

/// The label without its accelerator prefix (`[K] `, `K) `, `K - `), trimmed: `[Y] Yes` -> `Yes`.
std::string label_without_accelerator(std::string_view label);

/// §3.3 label normalization: trim, strip one accelerator prefix (`[K] `, `K) `, `K - `), lowercase.
std::string normalize_label(std::string_view label);

/// Which steps of §3.3 to use.
enum class EdgeSelectionMode {
  kAll,            ///< all five steps (after a non-failing outcome)
  kConditionsOnly  ///< step 1 only: failure routing never follows unconditional edges (docs/decisions.md)
};

/// The edge to follow from `from`, or nullopt when none qualifies.
std::optional<Edge> select_edge(const Graph& graph, Vertex from, const Outcome& outcome, const Context& context,
                                EdgeSelectionMode mode = EdgeSelectionMode::kAll);

}  // namespace attractor
