#pragma once
/// \file
/// Reads a run directory (checkpoint.json and the stages' status.json) into the overlay that
/// `attractor render --run` draws.

#include <stdexcept>
#include <string>

#include "attractor/launch/render_dot.h"

namespace attractor {

/// A run directory that cannot be read; the message names the file and the problem.
class RunDirectoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Path from `completed_nodes` (plus `current_node` when it is not already last), statuses from
/// the checkpoint's `node_outcomes` when present, else from `{node}/status.json`'s `outcome`.
RunOverlay load_run_overlay(const std::string& run_dir);

}  // namespace attractor
