#include "handlers/registry.h"

#include "handlers/codergen.h"
#include "handlers/conditional.h"
#include "handlers/exit.h"
#include "handlers/expand_dependency_tree.h"
#include "handlers/fan_in.h"
#include "handlers/fetch_node_texts.h"
#include "handlers/loop_guard.h"
#include "handlers/manage_context_budget.h"
#include "handlers/manager_loop.h"
#include "handlers/parallel.h"
#include "handlers/render_context_blocks.h"
#include "handlers/search_nodes.h"
#include "handlers/send_message.h"
#include "handlers/set_variables.h"
#include "handlers/simulation_backend.h"
#include "handlers/start.h"
#include "handlers/tool.h"
#include "handlers/wait_human.h"

namespace attractor {

HandlerRegistry make_default_registry(const HandlerServices& services) {
  std::shared_ptr<CodergenBackend> backend = services.backend ? services.backend : std::make_shared<SimulationBackend>();
  std::shared_ptr<Interviewer> interviewer =
      services.interviewer ? services.interviewer : std::make_shared<AutoApproveInterviewer>();
  HandlerRegistry registry;
  auto codergen = std::make_shared<CodergenHandler>(backend);
  registry.register_handler("start", std::make_shared<StartHandler>());
  registry.register_handler("exit", std::make_shared<ExitHandler>());
  registry.register_handler("conditional", std::make_shared<ConditionalHandler>());
  registry.register_handler("codergen", codergen);
  registry.register_handler("wait.human", std::make_shared<WaitHumanHandler>(interviewer));
  registry.register_handler("tool", std::make_shared<ToolHandler>(services.process_runner));
  registry.register_handler("parallel", std::make_shared<ParallelHandler>());
  registry.register_handler("parallel.fan_in", std::make_shared<FanInHandler>(backend));
  HandlerServices child_services = services;
  child_services.backend = backend;
  child_services.interviewer = interviewer;
  registry.register_handler("stack.manager_loop", std::make_shared<ManagerLoopHandler>(child_services));
  std::shared_ptr<RetrievalBackendProvider> retrieval =
      services.retrieval ? services.retrieval : std::make_shared<GraphRetrievalProvider>();
  registry.register_handler("search_nodes", std::make_shared<SearchNodesHandler>(retrieval));
  registry.register_handler("expand_dependency_tree", std::make_shared<ExpandDependencyTreeHandler>(retrieval));
  registry.register_handler("fetch_node_texts", std::make_shared<FetchNodeTextsHandler>(retrieval));
  registry.register_handler("manage_context_budget", std::make_shared<ManageContextBudgetHandler>());
  registry.register_handler("send_message", std::make_shared<SendMessageHandler>());
  registry.register_handler("render_context_blocks", std::make_shared<RenderContextBlocksHandler>());
  registry.register_handler("loop_guard", std::make_shared<LoopGuardHandler>());
  registry.register_handler("set_variables", std::make_shared<SetVariablesHandler>());
  registry.set_default(codergen);
  return registry;
}

}  // namespace attractor
