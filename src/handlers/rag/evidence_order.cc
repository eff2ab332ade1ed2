#include "handlers/rag/evidence_order.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace attractor {

std::optional<PrioritizationMode> parse_prioritization_mode(std::string_view text) {
  if (text == "seed_first") return PrioritizationMode::kSeedFirst;
  if (text == "graph_first") return PrioritizationMode::kGraphFirst;
  if (text == "balanced") return PrioritizationMode::kBalanced;
  return std::nullopt;
}

std::string_view to_string(PrioritizationMode mode) {
  switch (mode) {
    case PrioritizationMode::kSeedFirst: return "seed_first";
    case PrioritizationMode::kGraphFirst: return "graph_first";
    case PrioritizationMode::kBalanced: break;
  }
  return "balanced";
}

std::vector<EvidenceCandidate> order_candidates(const std::vector<std::string>& seeds,
                                                const std::vector<std::string>& expanded,
                                                const std::vector<retrieval::GraphEdge>& edges,
                                                PrioritizationMode mode) {
  std::vector<EvidenceCandidate> seed_list;
  std::unordered_set<std::string> members;
  for (const std::string& id : seeds) {
    if (members.insert(id).second) seed_list.push_back({id, true, 0, std::nullopt});
  }
  std::vector<std::string> graph_ids;
  for (const std::string& id : expanded) {
    if (members.insert(id).second) graph_ids.push_back(id);
  }

  std::unordered_map<std::string, std::set<std::string>> neighbours;
  for (const retrieval::GraphEdge& e : edges) {
    if (e.from_id == e.to_id || !members.count(e.from_id) || !members.count(e.to_id)) continue;
    neighbours[e.from_id].insert(e.to_id);
    neighbours[e.to_id].insert(e.from_id);
  }
  struct TreeInfo {
    int depth = 0;
    std::optional<std::string> parent;
    std::size_t root = 0;
  };
  std::unordered_map<std::string, TreeInfo> tree;
  std::deque<std::string> queue;
  for (std::size_t i = 0; i < seed_list.size(); ++i) {
    tree[seed_list[i].id] = {0, std::nullopt, i};
    queue.push_back(seed_list[i].id);
  }
  while (!queue.empty()) {
    std::string current = queue.front();
    queue.pop_front();
    const TreeInfo info = tree[current];
    auto it = neighbours.find(current);
    if (it == neighbours.end()) continue;
    for (const std::string& next : it->second) {
      if (tree.count(next)) continue;
      tree[next] = {info.depth + 1, current, info.root};
      queue.push_back(next);
    }
  }

  struct GraphNode {
    EvidenceCandidate candidate;
    std::optional<std::size_t> root;
  };
  std::vector<GraphNode> graph_nodes;
  for (const std::string& id : graph_ids) {
    auto it = tree.find(id);
    if (it == tree.end()) {
      graph_nodes.push_back({{id, false, 1, std::nullopt}, std::nullopt});
    } else {
      graph_nodes.push_back({{id, false, it->second.depth, it->second.parent}, it->second.root});
    }
  }
  std::sort(graph_nodes.begin(), graph_nodes.end(), [](const GraphNode& a, const GraphNode& b) {
    return std::tie(a.candidate.depth, a.candidate.id) < std::tie(b.candidate.depth, b.candidate.id);
  });

  std::vector<EvidenceCandidate> out;
  out.reserve(seed_list.size() + graph_nodes.size());
  switch (mode) {
    case PrioritizationMode::kSeedFirst:
      out = seed_list;
      for (const GraphNode& g : graph_nodes) out.push_back(g.candidate);
      break;
    case PrioritizationMode::kGraphFirst:
      for (std::size_t i = 0; i < seed_list.size(); ++i) {
        out.push_back(seed_list[i]);
        for (const GraphNode& g : graph_nodes) {
          if (g.root == i) out.push_back(g.candidate);
        }
      }
      for (const GraphNode& g : graph_nodes) {
        if (!g.root) out.push_back(g.candidate);
      }
      break;
    case PrioritizationMode::kBalanced:
      for (std::size_t i = 0; i < std::max(seed_list.size(), graph_nodes.size()); ++i) {
        if (i < seed_list.size()) out.push_back(seed_list[i]);
        if (i < graph_nodes.size()) out.push_back(graph_nodes[i].candidate);
      }
      break;
  }
  return out;
}

}  // namespace attractor
