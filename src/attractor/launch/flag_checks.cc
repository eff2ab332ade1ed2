#include "attractor/launch/flag_checks.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace attractor {

namespace {

/// `text` as a whole number or decimal; false when it is not one.
bool parse_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

/// A validator that refuses a value `allowed` rejects, saying `what` is allowed.
CLI::Validator numeric(const std::function<bool(double)>& allowed, const std::string& what, const std::string& name) {
  return CLI::Validator(
      [allowed, what](std::string& text) -> std::string {
        double value = 0;
        if (!parse_number(text, value)) return fmt::format("'{}' is not a number; pass {}", text, what);
        if (!allowed(value)) return fmt::format("{} is out of range; pass {}", text, what);
        return "";
      },
      name);
}

}  // namespace

CLI::Validator number_at_least(double minimum) {
  return numeric([minimum](double v) { return v >= minimum; }, fmt::format("{} or more", minimum),
                 fmt::format("NUMBER>={}", minimum));
}

CLI::Validator positive_number() {
  return numeric([](double v) { return v > 0; }, "a number above 0", "NUMBER>0");
}

CLI::Validator number_between(double low, double high) {
  return numeric([low, high](double v) { return v >= low && v <= high; }, fmt::format("{} to {}", low, high),
                 fmt::format("NUMBER in [{}, {}]", low, high));
}

}  // namespace attractor
