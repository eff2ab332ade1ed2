#pragma once
/// \file
/// `attractor run --dry-run`: what a run of a graph would do, resolved exactly as the run resolves
/// it (handler catalog, the backend's plan, fidelity and thread rules) without calling anything.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/run_budget.h"
#include "attractor/model/graph.h"
#include "attractor/launch/command_use.h"
#include "handlers/llm/backend_router.h"

namespace attractor {

/// One node as the run would treat it when it first reaches it.
struct PlannedStage {
  std::string id;
  std::string type;                    ///< handler type
  bool llm = false;                    ///< prompts an LLM
  std::string provider;                ///< LLM stages: the backend ("simulate" under --simulate)
  std::string model;                   ///< LLM stages: the model requests name ("" = the agent's default)
  std::vector<std::string> fallbacks;  ///< `provider:model` of its llm_fallbacks
  std::string fidelity;                ///< LLM stages: fidelity mode when reached from `reached_from`
  std::string thread;                  ///< LLM stages: thread id when reached from `reached_from`
  std::string reached_from;            ///< the node a breadth-first walk from the start reaches it from
  bool reachable = true;
  std::string not_run;  ///< LLM stages: why no backend would run it ("" when one would)
  /// The commands it would start and the sandbox level of each (launch/command_use.h).
  std::vector<CommandUse> commands;
};

/// The stages in breadth-first order from the start (edges in declaration order), then the nodes
/// no path reaches, in declaration order. LLM stages name what `backend` would use
/// (CodergenBackend::plan: the router's choice, or the simulation under --simulate).
std::vector<PlannedStage> plan_run(const Graph& graph, const HandlerCatalog& handlers, const CodergenBackend& backend);

/// True when some stage of `plan` has a `not_run` reason: the real run would be refused (exit 3).
bool plan_refused(const std::vector<PlannedStage>& plan);

/// The plan as text for people: one line per node (a stage nothing would run says why), then the
/// budget, then, when the run would be refused, a line saying so.
std::string format_plan(const Graph& graph, const std::vector<PlannedStage>& plan, const RunBudget& budget);

/// The plan as JSON: {"pipeline", "stages": [...], "budget"}.
nlohmann::json plan_json(const Graph& graph, const std::vector<PlannedStage>& plan, const RunBudget& budget);

}  // namespace attractor
