#pragma once
/// \file
/// A point of a run named on the command line as `NODE[@VISIT]`: the VISIT-th execution of NODE
/// among the checkpoint's `completed_nodes` (1 for the first; without `@VISIT`, the last one).
/// `diff --stage`, `rewind --to` and `fork --at` read it (docs/workspace.md).

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace attractor {

/// One completed stage: its node, its visit and its index in `completed_nodes`.
struct StagePoint {
  std::string node;
  std::size_t visit = 0;
  std::size_t entry = 0;
};

/// Every completed stage of `completed_nodes` as `NODE@VISIT`, in order; with `usable`, only the
/// entries it marks.
std::vector<std::string> stage_point_names(const std::vector<std::string>& completed_nodes,
                                           const std::vector<bool>* usable = nullptr);

/// The stage `text` names, or the one-line refusal: a malformed `@VISIT`, a node the run never
/// completed, a visit it did not reach, and with `usable`, an entry it does not mark (a branch
/// of a parallel stage, whose state is saved with its fan-out node's). Refusals end with the list
/// of valid points.
std::variant<StagePoint, std::string> find_stage_point(const std::string& text,
                                                       const std::vector<std::string>& completed_nodes,
                                                       const std::vector<bool>* usable = nullptr);

}  // namespace attractor
