#include "handlers/registry.h"

#include <vector>

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

namespace {

/// What the built-in handlers are made with: the services with their defaults filled in.
struct HandlerParts {
  std::shared_ptr<CodergenBackend> backend;
  std::shared_ptr<Interviewer> interviewer;
  std::shared_ptr<RetrievalBackendProvider> retrieval;
  ProcessRunner* process_runner = nullptr;
  std::string workdir;             ///< HandlerServices::workdir
  SandboxOptions sandbox;          ///< HandlerServices::sandbox
  HandlerServices child_services;  ///< a manager loop's child runs
};

/// One built-in handler type: its description and how to make its handler.
struct BuiltinHandler {
  const HandlerDescription& (*describe)();
  HandlerPtr (*make)(const HandlerParts& parts);
};

/// Every built-in type, one line each: the catalog reads the descriptions alone, the registry
/// pairs them with their handlers.
const std::vector<BuiltinHandler>& builtin_handlers() {
  using P = const HandlerParts&;
  static const std::vector<BuiltinHandler> all = {
      {start_description, [](P) -> HandlerPtr { return std::make_shared<StartHandler>(); }},
      {exit_description, [](P) -> HandlerPtr { return std::make_shared<ExitHandler>(); }},
      {conditional_description, [](P) -> HandlerPtr { return std::make_shared<ConditionalHandler>(); }},
      {codergen_description, [](P p) -> HandlerPtr { return std::make_shared<CodergenHandler>(p.backend, p.sandbox); }},
      {wait_human_description, [](P p) -> HandlerPtr { return std::make_shared<WaitHumanHandler>(p.interviewer); }},
      {tool_description,
       [](P p) -> HandlerPtr { return std::make_shared<ToolHandler>(p.process_runner, p.workdir, p.sandbox); }},
      {parallel_description, [](P) -> HandlerPtr { return std::make_shared<ParallelHandler>(); }},
      {fan_in_description, [](P p) -> HandlerPtr { return std::make_shared<FanInHandler>(p.backend); }},
      {manager_loop_description,
       [](P p) -> HandlerPtr { return std::make_shared<ManagerLoopHandler>(p.child_services); }},
      {search_nodes_description, [](P p) -> HandlerPtr { return std::make_shared<SearchNodesHandler>(p.retrieval); }},
      {expand_dependency_tree_description,
       [](P p) -> HandlerPtr { return std::make_shared<ExpandDependencyTreeHandler>(p.retrieval); }},
      {fetch_node_texts_description,
       [](P p) -> HandlerPtr { return std::make_shared<FetchNodeTextsHandler>(p.retrieval); }},
      {manage_context_budget_description,
       [](P) -> HandlerPtr { return std::make_shared<ManageContextBudgetHandler>(); }},
      {send_message_description, [](P) -> HandlerPtr { return std::make_shared<SendMessageHandler>(); }},
      {render_context_blocks_description,
       [](P) -> HandlerPtr { return std::make_shared<RenderContextBlocksHandler>(); }},
      {loop_guard_description, [](P) -> HandlerPtr { return std::make_shared<LoopGuardHandler>(); }},
      {set_variables_description, [](P) -> HandlerPtr { return std::make_shared<SetVariablesHandler>(); }},
  };
  return all;
}

/// The type of nodes that name neither a type nor a known shape.
const std::string& default_handler_type() { return codergen_description().type; }

}  // namespace

HandlerRegistry make_default_registry(const HandlerServices& services) {
  HandlerParts parts;
  parts.backend = services.backend ? services.backend : std::make_shared<SimulationBackend>();
  parts.interviewer = services.interviewer ? services.interviewer : std::make_shared<AutoApproveInterviewer>();
  parts.retrieval = services.retrieval ? services.retrieval : std::make_shared<GraphRetrievalProvider>();
  parts.process_runner = services.process_runner;
  parts.workdir = services.workdir;
  parts.sandbox = services.sandbox;
  parts.child_services = services;
  parts.child_services.backend = parts.backend;
  parts.child_services.interviewer = parts.interviewer;
  HandlerRegistry r;
  for (const BuiltinHandler& h : builtin_handlers()) r.register_handler(h.describe(), h.make(parts));
  r.set_default_type(default_handler_type());
  return r;
}

const HandlerCatalog& builtin_handler_catalog() {
  static const HandlerCatalog catalog = [] {
    HandlerCatalog c;
    for (const BuiltinHandler& h : builtin_handlers()) c.add(h.describe());
    c.set_default_type(default_handler_type());
    return c;
  }();
  return catalog;
}

}  // namespace attractor
