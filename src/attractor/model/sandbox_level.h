#pragma once
/// \file
/// The sandbox levels a pipeline, a run or a server chooses for the commands it starts
/// (docs/security.md): the one list lint, `help`, the CLI and the handlers read. How each level is
/// enforced is handlers/services/sandbox.h.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// How much of the machine a command may reach; ordered weakest first.
enum class SandboxLevel { kNone = 0, kWorkspace = 1, kStrict = 2 };

/// "none", "workspace" or "strict".
std::string_view sandbox_level_name(SandboxLevel level);
/// The level named `name`, or nullopt.
std::optional<SandboxLevel> parse_sandbox_level(std::string_view name);
/// Every level's name, weakest first (the values of attribute `sandbox` and of `--sandbox`).
const std::vector<std::string>& sandbox_level_names();
/// The values of attribute `sandbox.network`: "none" (no IP sockets at all), "loopback" (a network
/// namespace of its own: its own loopback, nothing else) and "all".
const std::vector<std::string>& sandbox_network_names();

}  // namespace attractor
