#include "handlers/registry.h"

#include "handlers/codergen.h"
#include "handlers/conditional.h"
#include "handlers/exit.h"
#include "handlers/rag/expand_dependency_tree.h"
#include "handlers/fan_in.h"
#include "handlers/rag/fetch_node_texts.h"
#include "handlers/loop_guard.h"
#include "handlers/rag/manage_context_budget.h"
#include "handlers/manager_loop.h"
#include "handlers/parallel.h"
#include "handlers/render_context_blocks.h"
#include "handlers/rag/search_nodes.h"
#include "handlers/send_message.h"
#include "handlers/set_variables.h"
#include "handlers/llm/simulation_backend.h"
#include "handlers/start.h"
#include "handlers/tool.h"
#include "handlers/wait_human.h"

namespace attractor {

HandlerRegistry make_default_registry(const HandlerServices& services) {
  std::shared_ptr<CodergenBackend> backend = services.backend ? services.backend : std::make_shared<SimulationBackend>();
  std::shared_ptr<Interviewer> interviewer =
      services.interviewer ? services.interviewer : std::make_shared<AutoApproveInterviewer>();
  std::shared_ptr<RetrievalBackendProvider> retrieval =
      services.retrieval ? services.retrieval : std::make_shared<GraphRetrievalProvider>();
  HandlerServices child_services = services;
  child_services.backend = backend;
  child_services.interviewer = interviewer;

  // One line per handler type: its description and its instance.
  HandlerRegistry r;
  r.register_handler(start_description(), std::make_shared<StartHandler>());
  r.register_handler(exit_description(), std::make_shared<ExitHandler>());
  r.register_handler(conditional_description(), std::make_shared<ConditionalHandler>());
  r.register_handler(codergen_description(), std::make_shared<CodergenHandler>(backend));
  r.register_handler(wait_human_description(), std::make_shared<WaitHumanHandler>(interviewer));
  r.register_handler(tool_description(), std::make_shared<ToolHandler>(services.process_runner));
  r.register_handler(parallel_description(), std::make_shared<ParallelHandler>());
  r.register_handler(fan_in_description(), std::make_shared<FanInHandler>(backend));
  r.register_handler(manager_loop_description(), std::make_shared<ManagerLoopHandler>(child_services));
  r.register_handler(search_nodes_description(), std::make_shared<SearchNodesHandler>(retrieval));
  r.register_handler(expand_dependency_tree_description(), std::make_shared<ExpandDependencyTreeHandler>(retrieval));
  r.register_handler(fetch_node_texts_description(), std::make_shared<FetchNodeTextsHandler>(retrieval));
  r.register_handler(manage_context_budget_description(), std::make_shared<ManageContextBudgetHandler>());
  r.register_handler(send_message_description(), std::make_shared<SendMessageHandler>());
  r.register_handler(render_context_blocks_description(), std::make_shared<RenderContextBlocksHandler>());
  r.register_handler(loop_guard_description(), std::make_shared<LoopGuardHandler>());
  r.register_handler(set_variables_description(), std::make_shared<SetVariablesHandler>());
  r.set_default_type(codergen_description().type);
  return r;
}

const HandlerCatalog& builtin_handler_catalog() {
  static const HandlerCatalog catalog = make_default_registry().catalog();
  return catalog;
}

}  // namespace attractor
