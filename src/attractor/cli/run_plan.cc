#include "attractor/cli/run_plan.h"

#include <algorithm>

#include <boost/graph/breadth_first_search.hpp>
#include <fmt/format.h>

#include "attractor/model/fidelity.h"
#include "attractor/model/node_roles.h"

namespace attractor {

namespace {

/// Records, for every vertex, the tree edge a breadth-first search discovers it by, and the order.
struct DiscoveryRecorder : boost::default_bfs_visitor {
  std::vector<std::optional<Edge>>* via;
  std::vector<Vertex>* order;
  void discover_vertex(Vertex v, const BoostGraph&) const { order->push_back(v); }
  void tree_edge(Edge e, const BoostGraph& g) const { (*via)[boost::target(e, g)] = e; }
};

PlannedStage plan_stage(const Graph& graph, Vertex v, const std::optional<Edge>& via, const HandlerCatalog& handlers,
                        const CodergenBackend& backend) {
  const NodeData& node = graph.node(v);
  PlannedStage s;
  s.id = node.id;
  s.type = handlers.type_of(node);
  s.llm = node_uses_llm(node, handlers);
  const EdgeData* edge = via ? &graph.edge(*via) : nullptr;
  s.reached_from = edge ? graph.node(boost::source(*via, graph.boost())).id : "";
  if (!s.llm) return s;
  BackendChoice choice = backend.plan(node, graph);
  s.provider = choice.provider;
  s.model = choice.model;
  s.not_run = backend.stage_problem(node, graph);
  try {
    for (const FallbackStep& f : llm_fallbacks(node, graph)) s.fallbacks.push_back(f.provider + ":" + f.model);
  } catch (const std::exception&) {
  }
  s.fidelity = effective_fidelity(resolve_fidelity(edge, node, graph));
  s.thread = resolve_thread_id(edge, node, graph, s.reached_from);
  return s;
}

std::string budget_text(const RunBudget& budget) {
  std::string text;
  if (budget.max_total_tokens) text += fmt::format("max_total_tokens={}", *budget.max_total_tokens);
  if (budget.max_cost_usd) text += fmt::format("{}max_cost=${:.4f}", text.empty() ? "" : ", ", *budget.max_cost_usd);
  return text.empty() ? "none" : text;
}

}  // namespace

bool plan_refused(const std::vector<PlannedStage>& plan) {
  return std::any_of(plan.begin(), plan.end(), [](const PlannedStage& s) { return !s.not_run.empty(); });
}

std::vector<PlannedStage> plan_run(const Graph& graph, const HandlerCatalog& handlers, const CodergenBackend& backend) {
  const std::size_t n = graph.node_count();
  std::vector<std::optional<Edge>> via(n);
  std::vector<Vertex> order;
  if (std::optional<Vertex> start = find_start_node(graph)) {
    boost::breadth_first_search(graph.boost(), *start, boost::visitor(DiscoveryRecorder{{}, &via, &order}));
  }
  std::vector<char> seen(n, 0);
  std::vector<PlannedStage> plan;
  for (Vertex v : order) {
    seen[v] = 1;
    plan.push_back(plan_stage(graph, v, via[v], handlers, backend));
  }
  for (Vertex v : graph.nodes()) {
    if (seen[v]) continue;
    plan.push_back(plan_stage(graph, v, std::nullopt, handlers, backend));
    plan.back().reachable = false;
  }
  return plan;
}

std::string format_plan(const Graph& graph, const std::vector<PlannedStage>& plan, const RunBudget& budget) {
  std::string out = fmt::format("plan of {}: {} nodes (dry run: nothing was called, no run directory made)\n",
                                graph.name(), plan.size());
  for (const PlannedStage& s : plan) {
    out += fmt::format("  {:<20} {:<22}", s.id, s.type);
    if (s.llm) {
      out += fmt::format(" {}:{}  fidelity {}  thread {}", s.provider.empty() ? "(no backend)" : s.provider,
                         s.model.empty() ? "(agent default)" : s.model, s.fidelity, s.thread);
      if (!s.fallbacks.empty()) out += "  fallbacks " + fmt::format("{}", fmt::join(s.fallbacks, ", "));
    }
    if (!s.reachable) out += "  (unreachable)";
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
    if (!s.not_run.empty()) out += fmt::format("  {:<20} not run: {}\n", "", s.not_run);
    std::string commands;
    for (const CommandUse& c : s.commands)
      commands += (commands.empty() ? "" : ", ") + c.what + " [sandbox " + c.sandbox + "]";
    if (!commands.empty()) out += fmt::format("  {:<20} commands: {}\n", "", commands);
  }
  out += "budget: " + budget_text(budget) + "\n";
  if (plan_refused(plan)) out += "the run would be refused (exit 3): a stage above has no backend that can run it\n";
  return out;
}

nlohmann::json plan_json(const Graph& graph, const std::vector<PlannedStage>& plan, const RunBudget& budget) {
  nlohmann::json stages = nlohmann::json::array();
  for (const PlannedStage& s : plan) {
    nlohmann::json j = {
        {"id", s.id}, {"type", s.type}, {"llm", s.llm}, {"reached_from", s.reached_from}, {"reachable", s.reachable}};
    if (s.llm) {
      j["provider"] = s.provider;
      j["model"] = s.model;
      j["fallbacks"] = s.fallbacks;
      j["fidelity"] = s.fidelity;
      j["thread_id"] = s.thread;
      j["not_run"] = s.not_run.empty() ? nlohmann::json() : nlohmann::json(s.not_run);
    }
    if (!s.commands.empty()) {
      j["commands"] = nlohmann::json::array();
      for (const CommandUse& c : s.commands) j["commands"].push_back({{"what", c.what}, {"sandbox", c.sandbox}});
    }
    stages.push_back(std::move(j));
  }
  nlohmann::json b = nlohmann::json::object();
  if (budget.max_total_tokens) b["max_total_tokens"] = *budget.max_total_tokens;
  if (budget.max_cost_usd) b["max_cost"] = *budget.max_cost_usd;
  return {{"pipeline", graph.name()}, {"stages", stages}, {"budget", b}, {"refused", plan_refused(plan)}};
}

}  // namespace attractor
