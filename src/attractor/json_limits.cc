#include "attractor/json_limits.h"

#include <stdexcept>

namespace attractor {

namespace {

struct TooDeep {};

}  // namespace

nlohmann::json parse_json_limited(std::string_view text, const std::string& what, int max_depth) {
  try {
    return nlohmann::json::parse(text, [max_depth](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > max_depth) throw TooDeep{};
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
