#include "attractor/workspace/workspace.h"

#include <fmt/format.h>

namespace attractor {

std::string stage_commit_message(const StageCommit& s) {
  std::string visit = s.visit > 1 ? fmt::format(" (visit {})", s.visit) : "";
  return fmt::format(
      "{}{}: {}\n\nAttractor-Run: {}\nAttractor-Node: {}\nAttractor-Visit: {}\nAttractor-Checkpoint: {}\n", s.node,
      visit, s.status, s.run_id, s.node, s.visit, s.checkpoint_seq);
}

}  // namespace attractor
