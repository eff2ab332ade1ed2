#include "attractor/launch/stage_point.h"

#include <charconv>
#include <map>

#include <fmt/format.h>

namespace attractor {

std::vector<std::string> stage_point_names(const std::vector<std::string>& completed_nodes,
                                           const std::vector<bool>* usable) {
  std::map<std::string, std::size_t> visits;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < completed_nodes.size(); ++i) {
    const std::size_t visit = ++visits[completed_nodes[i]];
    if (!usable || (i < usable->size() && (*usable)[i]))
      names.push_back(fmt::format("{}@{}", completed_nodes[i], visit));
  }
  return names;
}

namespace {

std::string valid_points(const std::vector<std::string>& completed_nodes, const std::vector<bool>* usable) {
  std::vector<std::string> names = stage_point_names(completed_nodes, usable);
  if (names.empty()) return "the run has completed no stage yet";
  return "valid points: " + fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::variant<StagePoint, std::string> find_stage_point(const std::string& text,
                                                       const std::vector<std::string>& completed_nodes,
                                                       const std::vector<bool>* usable) {
  StagePoint p;
  std::size_t wanted = 0;
  const std::size_t at = text.rfind('@');
  p.node = text.substr(0, at);
  if (at != std::string::npos) {
    const char* first = text.data() + at + 1;
    const char* last = text.data() + text.size();
    auto [end, ec] = std::from_chars(first, last, wanted);
    if (ec != std::errc() || end != last || wanted == 0) {
      return fmt::format("'{}': the visit after @ must be a number from 1 ({})", text,
                         valid_points(completed_nodes, usable));
    }
  }
  std::vector<std::size_t> entries;
  for (std::size_t i = 0; i < completed_nodes.size(); ++i) {
    if (completed_nodes[i] == p.node) entries.push_back(i);
  }
  if (entries.empty()) {
    return fmt::format("the run never completed node '{}' ({})", p.node, valid_points(completed_nodes, usable));
  }
  if (wanted > entries.size()) {
    return fmt::format("node '{}' completed {} visit{}, not {} ({})", p.node, entries.size(),
                       entries.size() == 1 ? "" : "s", wanted, valid_points(completed_nodes, usable));
  }
  p.visit = wanted == 0 ? entries.size() : wanted;
  p.entry = entries[p.visit - 1];
  if (usable && (p.entry >= usable->size() || !(*usable)[p.entry])) {
    return fmt::format(
        "{}@{} has no checkpoint of its own: it ran as a branch of a parallel stage, saved with its "
        "fan-out node ({})",
        p.node, p.visit, valid_points(completed_nodes, usable));
  }
  return p;
}

}  // namespace attractor
