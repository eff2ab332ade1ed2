#include "attractor/launch/command_use.h"

#include "handlers/llm/backend_router.h"
#include "handlers/services/sandbox.h"
#include "handlers/services/tool_hooks.h"

namespace attractor {

std::vector<CommandUse> command_uses(const Graph& graph, const HandlerServices& services) {
  const HandlerCatalog& handlers = builtin_handler_catalog();
  std::vector<CommandUse> uses;
  for (auto v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    const std::string type = handlers.type_of(node);
    auto level = [&](CommandKind kind) {
      return std::string(sandbox_level_name(resolve_sandbox(&node, graph, kind, services.sandbox).level));
    };
    if (handlers.traits(node).runs_tools) uses.push_back({node.id, "tool_command", level(CommandKind::kToolStage)});
    if (type == "stack.manager_loop") uses.push_back({node.id, "stack.manager_loop (a child pipeline)"});
    const std::string llm = node_uses_llm(node, handlers) && services.backend
                                ? services.backend->plan(node, graph).runs_commands
                                : "";
    if (!llm.empty()) {
      const bool cli = llm.find("cli:") != std::string::npos;
      uses.push_back({node.id, llm, level(cli ? CommandKind::kCliAgent : CommandKind::kAgentShell), cli});
    }
    // Hooks run around the calls of tool stages and of the agents.
    const ToolHookCommands hooks = tool_hook_commands(node, graph);
    const bool hooked = handlers.traits(node).runs_tools || !llm.empty();
    if (hooked && !hooks.pre.empty()) uses.push_back({node.id, "tool_hooks.pre", level(CommandKind::kHook)});
    if (hooked && !hooks.post.empty()) uses.push_back({node.id, "tool_hooks.post", level(CommandKind::kHook)});
  }
  return uses;
}

std::string describe_command_uses(const std::vector<CommandUse>& uses) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(uses.size(), 5);
  for (std::size_t i = 0; i < shown; ++i) {
    text += (i ? ", " : "") + std::string("node '") + uses[i].node + "' (" + uses[i].what + ")";
  }
  if (uses.size() > shown) text += " and " + std::to_string(uses.size() - shown) + " more";
  return text;
}

}  // namespace attractor
