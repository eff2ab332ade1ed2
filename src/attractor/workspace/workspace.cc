#include "attractor/workspace/workspace.h"

#include <algorithm>

#include <fmt/format.h>

namespace attractor {

std::string stage_commit_message(const StageCommit& s) {
  std::string visit = s.visit > 1 ? fmt::format(" (visit {})", s.visit) : "";
  return fmt::format(
      "{}{}: {}\n\nAttractor-Run: {}\nAttractor-Node: {}\nAttractor-Visit: {}\nAttractor-Checkpoint: {}\n", s.node,
      visit, s.status, s.run_id, s.node, s.visit, s.checkpoint_seq);
}

std::string commit_after(const std::vector<std::string>& commits, std::size_t entries, const std::string& base_commit) {
  for (std::size_t i = std::min(entries, commits.size()); i > 0; --i) {
    if (!commits[i - 1].empty()) return commits[i - 1];
  }
  return base_commit;
}

}  // namespace attractor
