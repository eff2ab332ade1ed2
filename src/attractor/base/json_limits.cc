#include "attractor/base/json_limits.h"

#include <stdexcept>
#include <utility>
#include <vector>

namespace attractor {

namespace {

struct TooDeep {};

/// Parses `text`, throwing TooDeep past `max_depth`, nlohmann's exceptions on bad syntax.
nlohmann::json parse_with_limit(std::string_view text, int max_depth) {
  using Event = nlohmann::json::parse_event_t;
  return nlohmann::json::parse(text, [max_depth](int depth, Event event, nlohmann::json&) {
    // `depth` of a container's start event is the number of containers around it.
    if ((event == Event::object_start || event == Event::array_start) && depth >= max_depth) throw TooDeep{};
    return true;
  });
}

std::string too_deep(int max_depth) { return "nested deeper than " + std::to_string(max_depth) + " levels"; }

}  // namespace

nlohmann::json parse_json_limited(std::string_view text, const std::string& what, int max_depth) {
  try {
    return parse_with_limit(text, max_depth);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e999
    std::string reason = e.what();
    if (auto p = reason.find("] "); p != std::string::npos) reason = reason.substr(p + 2);
    throw std::runtime_error(what + " is not valid JSON: " + reason);
  } catch (const TooDeep&) {
    throw std::runtime_error(what + " is not valid JSON: " + too_deep(max_depth));
  }
}

nlohmann::json parse_json_or_discarded(std::string_view text, int max_depth) {
  try {
    return parse_with_limit(text, max_depth);
  } catch (const nlohmann::json::exception&) {
  } catch (const TooDeep&) {
  }
  return nlohmann::json(nlohmann::json::value_t::discarded);
}

int json_depth(const nlohmann::json& value, int stop_after) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::json*, int>> pending{{&value, 0}};
  while (!pending.empty()) {
    auto [v, depth] = pending.back();
    pending.pop_back();
    if (!v->is_structured()) continue;
    const int inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > stop_after) return stop_after + 1;
    for (const auto& child : *v) {
      if (child.is_structured()) pending.emplace_back(&child, inner);
    }
  }
  return deepest;
}

std::string json_depth_problem(const nlohmann::json& value, int max_depth) {
  return json_depth(value, max_depth) > max_depth ? too_deep(max_depth) : std::string();
}

}  // namespace attractor
