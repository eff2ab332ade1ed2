#include "attractor/model/sandbox_level.h"

namespace attractor {

std::string_view sandbox_level_name(SandboxLevel level) {
  return sandbox_level_names()[static_cast<std::size_t>(level)];
}

std::optional<SandboxLevel> parse_sandbox_level(std::string_view name) {
  const std::vector<std::string>& names = sandbox_level_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<SandboxLevel>(i);
  }
  return std::nullopt;
}

const std::vector<std::string>& sandbox_level_names() {
  static const std::vector<std::string> names = {"none", "workspace", "strict"};
  return names;
}

const std::vector<std::string>& sandbox_network_names() {
  static const std::vector<std::string> names = {"none", "loopback", "all"};
  return names;
}

}  // namespace attractor
