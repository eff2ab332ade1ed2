#pragma once
/// \file
/// Which stages of a prepared run would start commands on this machine: tool stages (`runs_tools`
/// handlers, `tool_command`), tool hooks (`tool_hooks.pre`/`.post`, node or graph), LLM stages
/// routed to a `cli:*` agent or to the built-in coding agent (`agent*`, whose shell tool runs
/// commands), directly or in their `llm_fallbacks`, and manager loops (their child pipeline is a
/// file this check does not read). `attractor serve` refuses such a run unless started with
/// `--allow-commands` (LaunchRequest::allow_commands; docs/server.md section 2).

#include <string>
#include <vector>

#include "attractor/model/graph.h"
#include "handlers/registry.h"

namespace attractor {

/// One stage that would run commands, and how.
struct CommandUse {
  std::string node;
  std::string what;  ///< e.g. "tool_command", "tool_hooks.pre", "llm_provider cli:claude"
  /// The sandbox level it runs at (handlers/services/sandbox.h); for a cli agent the level asked
  /// for, which the launch refuses unless it is "none"; "none" for a manager loop (its child
  /// pipeline's commands have their own).
  std::string sandbox = "none";
  bool cli_agent = false;  ///< an external agent program (`cli:*`), which no sandbox level confines
};

/// The stages of `graph` run with `services` that would run commands, in graph order (empty: none).
std::vector<CommandUse> command_uses(const Graph& graph, const HandlerServices& services);

/// One line naming the first few uses, e.g. "node 'build' (tool_command), node 'fix' (...)".
std::string describe_command_uses(const std::vector<CommandUse>& uses);

}  // namespace attractor
