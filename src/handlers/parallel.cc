#include "handlers/parallel.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <fmt/format.h>

namespace attractor {

namespace {

/// The edges a branch follows: none out of a fan-in node (the branch stops there) and none back
/// into the parallel node `skip`.
struct BranchEdges {
  const BoostGraph* g = nullptr;
  const std::vector<char>* fans_in = nullptr;
  const std::string* skip = nullptr;
  bool operator()(Edge e) const { return !(*fans_in)[boost::source(e, *g)] && (*g)[boost::target(e, *g)].id != *skip; }
};

/// Breadth-first distances from `start` to every fan-in node reachable without passing `skip`.
std::map<std::string, int> fan_in_distances(const Graph& graph, const HandlerCatalog& handlers,
                                            const std::string& start, const std::string& skip) {
  std::optional<Vertex> from = graph.find(start);
  if (!from) return {};
  const BoostGraph& g = graph.boost();
  std::vector<char> fans_in(graph.node_count(), 0);
  for (Vertex v : graph.nodes()) fans_in[v] = handlers.traits(graph.node(v)).fans_in ? 1 : 0;
  boost::filtered_graph<BoostGraph, BranchEdges> branch(g, BranchEdges{&g, &fans_in, &skip});
  std::vector<int> dist(graph.node_count(), -1);
  dist[*from] = 0;
  auto dist_map = boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g));
  boost::breadth_first_search(
      branch, *from, boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist_map, boost::on_tree_edge()))));
  std::map<std::string, int> found;
  for (Vertex v : graph.nodes()) {
    if (dist[v] >= 0 && fans_in[v]) found.emplace(graph.node(v).id, dist[v]);
  }
  return found;
}

/// The message of a `k_of_n` join without a usable `join_k` (lint and run time alike).
std::string join_k_problem(const NodeData& node, std::size_t branches) {
  return fmt::format(
      "parallel node '{}' has join_policy=k_of_n but join_k='{}'; it needs an integer from 1 to {} "
      "(its branch count)",
      node.id, node.get("join_k"), branches);
}

/// `parallel.branch.<id>.status` / `.notes` of one branch: a cancelled branch counts as failed,
/// with the reason in its notes.
void add_branch_keys(Outcome& o, const BranchResult& r, const std::string& join) {
  std::string prefix = std::string(kParallelBranchKeyPrefix) + r.id;
  std::string notes = r.outcome.failure_reason.empty() ? r.outcome.notes : r.outcome.failure_reason;
  std::string status = status_name(r.outcome.status);
  if (r.cancelled) {
    status = "fail";
    notes = join == "first_success" ? "cancelled: another branch succeeded first (join_policy=first_success)"
                                    : "cancelled";
  } else if (r.outcome.status == StageStatus::kRetry || r.outcome.status == StageStatus::kSkipped) {
    status = "fail";
  }
  o.context_updates[prefix + ".status"] = status;
  o.context_updates[prefix + ".notes"] = notes;
}

void check_join_k(const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out) {
  if (node.get("join_policy") != "k_of_n") return;
  std::size_t branches = graph.out_edges(*graph.find(node.id)).size();
  std::optional<std::int64_t> k = node.get_integer("join_k");
  if (k && *k >= 1 && *k <= static_cast<std::int64_t>(branches)) return;
  auto at = node.find("join_k");
  out.push_back(make_diagnostic("join_k", Severity::kError, join_k_problem(node, branches), node.id,
                                fmt::format("set join_k=N with 1 <= N <= {} on '{}'", branches, node.id),
                                value_location(at, node.location)));
}

}  // namespace

std::string find_fan_in(const Graph& graph, const HandlerCatalog& handlers, const std::string& parallel_node) {
  auto v = graph.find(parallel_node);
  if (!v) return "";
  std::map<std::string, int> common;
  bool first = true;
  for (Edge e : graph.out_edges(*v)) {
    std::map<std::string, int> d = fan_in_distances(graph, handlers, graph.to_id(e), parallel_node);
    if (first) {
      common = d;
      first = false;
      continue;
    }
    std::map<std::string, int> next;
    for (const auto& [id, dist] : common) {
      auto it = d.find(id);
      if (it != d.end()) next[id] = std::max(dist, it->second);
    }
    common = std::move(next);
  }
  std::string best;
  int best_dist = 0;
  for (const auto& [id, dist] : common) {
    if (best.empty() || dist < best_dist) {
      best = id;
      best_dist = dist;
    }
  }
  return best;
}

Outcome ParallelHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  if (!env.branches) return Outcome::fail("parallel execution is not available here", ErrorCategory::kPipeline);
  std::vector<std::string> targets;
  for (Edge e : graph.out_edges(*graph.find(node.id))) targets.push_back(graph.to_id(e));
  if (targets.empty()) return Outcome::fail("parallel node has no branches", ErrorCategory::kTerminal);
  std::string join = node.get("join_policy", "wait_all");
  if (join != "wait_all" && join != "first_success" && join != "k_of_n") {
    return Outcome::fail("unknown join_policy '" + join + "'", ErrorCategory::kTerminal);
  }
  std::int64_t join_k = node.get_integer("join_k").value_or(0);
  if (join == "k_of_n" && (join_k < 1 || join_k > static_cast<std::int64_t>(targets.size()))) {
    return Outcome::fail(join_k_problem(node, targets.size()), ErrorCategory::kTerminal);
  }
  std::int64_t max_parallel = std::max<std::int64_t>(1, node.get_integer("max_parallel").value_or(4));
  std::string fan_in = find_fan_in(graph, *env.handlers, node.id);

  std::size_t n = targets.size();
  std::vector<BranchResult> results(n);
  std::vector<CancelToken> tokens;
  for (std::size_t i = 0; i < n; ++i) tokens.push_back(env.cancel.child());
  std::vector<std::unique_ptr<Context>> contexts;
  for (std::size_t i = 0; i < n; ++i) contexts.push_back(context.clone());

  std::int64_t started = env.clock ? env.clock->now_ms() : 0;
  env.emit(kParallelStartedEvent, {{"name", node.id}, {"branch_count", n}, {"join_policy", join}, {"fan_in", fan_in}});
  std::atomic<std::size_t> next{0};
  std::atomic<bool> winner{false};
  auto run_branches = [&] {
    while (true) {
      std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      if (join == "first_success" && winner.load()) tokens[i].cancel();
      env.emit(kParallelBranchStartedEvent, {{"branch", targets[i]}, {"index", i}});
      BranchResult r = env.branches->run_branch(targets[i], *contexts[i], fan_in, tokens[i]);
      r.index = i;
      bool ok = !r.cancelled && is_success(r.outcome.status);
      env.emit(kParallelBranchCompletedEvent, {{"branch", targets[i]},
                                               {"index", i},
                                               {"duration_ms", r.duration_ms},
                                               {"success", ok},
                                               {"status", status_name(r.outcome.status)},
                                               {"cancelled", r.cancelled}});
      if (join == "first_success" && ok && !winner.exchange(true)) {
        for (std::size_t j = 0; j < n; ++j) {
          if (j != i) tokens[j].cancel();
        }
      }
      results[i] = std::move(r);
    }
  };
  // An exception from a branch (a write failing on a full disk) must not escape a thread or unwind
  // past joinable threads (both call std::terminate): the first one is kept, the other branches are
  // cancelled, and it is rethrown once every thread has joined.
  std::exception_ptr branch_error;
  std::mutex branch_error_mutex;
  auto worker = [&] {
    try {
      run_branches();
    } catch (...) {
      std::lock_guard lock(branch_error_mutex);
      if (!branch_error) branch_error = std::current_exception();
      for (auto& token : tokens) token.cancel();
    }
  };
  std::size_t workers = std::min<std::size_t>(n, static_cast<std::size_t>(max_parallel));
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (branch_error) std::rethrow_exception(branch_error);

  if (env.cancel.cancelled()) return Outcome::fail("parallel block cancelled");

  std::size_t success = 0;
  std::size_t failure = 0;
  nlohmann::json serialized = nlohmann::json::array();
  std::string common_stop = results.empty() ? "" : results.front().stopped_at;
  for (const auto& r : results) {
    bool ok = !r.cancelled && is_success(r.outcome.status);
    if (ok) ++success;
    else if (!r.cancelled) ++failure;
    if (r.stopped_at != common_stop) common_stop.clear();
    serialized.push_back({{"id", r.id},
                          {"status", r.cancelled ? "cancelled" : status_name(r.outcome.status)},
                          {"notes", r.outcome.notes},
                          {"failure_reason", r.outcome.failure_reason},
                          {"last_node", r.last_node},
                          {"last_response", r.last_response},
                          {"completed_nodes", r.completed_nodes},
                          {"context_changes", r.context_changes},
                          {"cancelled", r.cancelled}});
  }
  std::int64_t duration = env.clock ? env.clock->now_ms() - started : 0;
  env.emit(kParallelCompletedEvent,
           {{"name", node.id}, {"duration_ms", duration}, {"success_count", success}, {"failure_count", failure}});

  Outcome o;
  if (join == "first_success") {
    o.status = success > 0 ? StageStatus::kSuccess : StageStatus::kFail;
  } else if (join == "k_of_n") {
    o.status = static_cast<std::int64_t>(success) >= join_k ? StageStatus::kSuccess : StageStatus::kFail;
  } else if (failure == 0) {
    o.status = StageStatus::kSuccess;
  } else {
    o.status = success > 0 ? StageStatus::kPartialSuccess : StageStatus::kFail;
  }
  if (o.status == StageStatus::kFail) {
    o.failure_reason = join == "k_of_n"
                           ? fmt::format("{} of {} branches succeeded, join_k={} needed", success, n, join_k)
                           : "no parallel branch succeeded";
    o.category = ErrorCategory::kTerminal;
  }
  o.notes = std::to_string(success) + " of " + std::to_string(n) + " branches succeeded";
  o.context_updates[kParallelResultsKey] = serialized;
  o.context_updates[kParallelBranchCountKey] = n;
  o.context_updates[kParallelSuccessCountKey] = success;
  o.context_updates[kParallelFailureCountKey] = failure;
  for (const auto& r : results) add_branch_keys(o, r, join);
  o.context_updates[kParallelOutcomeKey] = status_name(o.status);
  o.context_updates[kParallelFailureReasonKey] = o.failure_reason;
  o.jump_to = !fan_in.empty() ? fan_in : common_stop;
  return o;
}

const HandlerDescription& parallel_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "parallel";
    d.shapes = {"component"};
    d.summary = "Fans out: runs every outgoing branch on its own thread until the fan-in node.";
    d.attributes = {
        {"join_policy",
         AttributeType::kEnum,
         "wait_all",
         "wait_all waits for every branch (success when all succeed, partial_success when some do, fail when "
         "none do); first_success cancels the other branches once one succeeds (success when one does); k_of_n "
         "waits for every branch and succeeds when at least join_k did, else fails.",
         {"wait_all", "first_success", "k_of_n"}},
        {"join_k", AttributeType::kNonNegativeInteger, "",
         "For join_policy=k_of_n: how many branches must succeed (1 to the number of branches)."},
        {"max_parallel", AttributeType::kPositiveInteger, "4", "Branches that run at the same time."},
    };
    d.checks = {{"join_k", check_join_k}};
    HandlerTraits& t = d.traits;
    t.fans_out = true;
    t.queues_writes = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
