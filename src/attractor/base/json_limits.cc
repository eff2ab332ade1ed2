#include "attractor/base/json_limits.h"

#include <stdexcept>

namespace attractor {

namespace {

struct TooDeep {};

}  // namespace

nlohmann::json parse_json_limited(std::string_view text, const std::string& what, int max_depth) {
  try {
    using Event = nlohmann::json::parse_event_t;
    return nlohmann::json::parse(text, [max_depth](int depth, Event event, nlohmann::json&) {
      // `depth` of a container's start event is the number of containers around it.
      if ((event == Event::object_start || event == Event::array_start) && depth >= max_depth) throw TooDeep{};
      return true;
    });
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e999
    std::string reason = e.what();
    if (auto p = reason.find("] "); p != std::string::npos) reason = reason.substr(p + 2);
    throw std::runtime_error(what + " is not valid JSON: " + reason);
  } catch (const TooDeep&) {
    throw std::runtime_error(what + " is not valid JSON: nested deeper than " + std::to_string(max_depth) + " levels");
  }
}

}  // namespace attractor
