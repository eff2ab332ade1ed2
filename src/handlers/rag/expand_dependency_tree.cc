#include "handlers/rag/expand_dependency_tree.h"

#include <limits>
#include <set>

#include <fmt/format.h>

#include "attractor/base/json_limits.h"
#include "attractor/model/value.h"
#include "handlers/rag/search_nodes.h"
#include "retrieval/edge_types.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace {

namespace et = retrieval::edge_type;

std::string allowed_edge_types() {
  std::string out;
  for (const char* type : et::kAll) out += (out.empty() ? "" : " | ") + std::string(type);
  return out + " (prefix ~ to follow backwards)";
}

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

[[noreturn]] void config_error(const NodeData& node, const std::string& message) {
  throw StageError(fmt::format("node '{}': {}", node.id, message), ErrorCategory::kTerminal);
}

/// The graph attribute named by node attribute `mapping_key`; errors when either is missing.
ValueView setting_for(const NodeData& node, const Graph& graph, const std::string& mapping_key) {
  std::string setting = node.get(mapping_key);
  if (setting.empty()) {
    config_error(node, fmt::format("{} is required (the name of a graph attribute)", mapping_key));
  }
  auto value = graph.data().find(setting);
  if (!value) {
    config_error(node, fmt::format("{}='{}' names a graph attribute that is not set", mapping_key, setting));
  }
  return *value;
}

int setting_count(const NodeData& node, const Graph& graph, const std::string& mapping_key, std::int64_t minimum) {
  ValueView value = setting_for(node, graph, mapping_key);
  auto number = parse_integer(value.text());
  if (!number || *number < minimum || *number > std::numeric_limits<std::int32_t>::max()) {
    config_error(node, fmt::format("graph attribute {} (from {}) must be an integer >= {}, got '{}'",
                                   node.get(mapping_key), mapping_key, minimum, value.text()));
  }
  return static_cast<int>(*number);
}

std::vector<std::string> read_seeds(const NodeData& node, const Context& context) {
  auto value = context.get("retrieval_seed_nodes");
  if (!value || value->is_null()) {
    config_error(node, "context key 'retrieval_seed_nodes' is required (a list of node ids; run search_nodes first)");
  }
  std::vector<std::string> seeds;
  bool ok = value->is_array();
  if (ok) {
    for (const auto& item : *value) {
      if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
        ok = false;
        break;
      }
      seeds.push_back(item.get<std::string>());
    }
  }
  if (!ok) config_error(node, "context key 'retrieval_seed_nodes' must be a list of non-empty strings");
  return seeds;
}

}  // namespace

std::optional<std::vector<std::string>> parse_edge_allowlist(std::string_view text, std::string* error) {
  std::vector<std::string> entries;
  std::string_view trimmed = trim_blanks(text);
  if (!trimmed.empty() && trimmed.front() == '[') {
    auto parsed = parse_json_or_discarded(trimmed);
    if (parsed.is_discarded() || !parsed.is_array()) {
      if (error) *error = "is not a valid JSON list";
      return std::nullopt;
    }
    for (const auto& item : parsed) {
      if (!item.is_string()) {
        if (error) *error = "must list strings only";
        return std::nullopt;
      }
      std::string entry(trim_blanks(item.get_ref<const std::string&>()));
      if (!entry.empty()) entries.push_back(std::move(entry));
    }
  } else {
    std::size_t start = 0;
    while (start <= trimmed.size()) {
      std::size_t comma = trimmed.find(',', start);
      std::string_view part = trim_blanks(
          trimmed.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (!part.empty()) entries.emplace_back(part);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  if (entries.empty()) {
    if (error) *error = "is empty";
    return std::nullopt;
  }
  for (const auto& entry : entries) {
    if (!et::is_allowlist_entry(entry)) {
      if (error) *error = fmt::format("has unknown edge type '{}'", entry);
      return std::nullopt;
    }
  }
  return entries;
}

Outcome ExpandDependencyTreeHandler::execute(const NodeData& node, Context& context, const Graph& graph,
                                             const StageEnv& env) {
  RetrievalScope scope = read_retrieval_scope(node, context, graph);
  int max_depth = setting_count(node, graph, "max_depth_from_settings", 0);
  int max_nodes = setting_count(node, graph, "max_nodes_from_settings", 1);
  ValueView allow_value = setting_for(node, graph, "edge_allowlist_from_settings");
  std::string allow_error;
  auto allowlist = parse_edge_allowlist(allow_value.text(), &allow_error);
  if (!allowlist) {
    config_error(node, fmt::format("graph attribute {} (from edge_allowlist_from_settings) {}; allowed entries: {}",
                                   node.get("edge_allowlist_from_settings"), allow_error, allowed_edge_types()));
  }
  std::vector<std::string> seeds = read_seeds(node, context);

  retrieval::ExpandResult result;
  if (seeds.empty()) {
    result.reason = "no_seeds";
  } else {
    std::shared_ptr<retrieval::IRetrievalBackend> backend = provider_->backend_for(graph);
    if (!backend) throw StageError("node '" + node.id + "': no retrieval backend", ErrorCategory::kTerminal);
    retrieval::ExpandRequest request;
    request.seed_ids = seeds;
    request.edge_allowlist = *allowlist;
    request.max_depth = max_depth;
    request.max_nodes = max_nodes;
    request.repository = scope.repository;
    request.branch = scope.branch;
    request.retrieval_filters = scope.filters;
    request.active_index = scope.active_index;
    try {
      result = backend->expand(request);
    } catch (const retrieval::RetrievalError& error) {
      throw_retrieval_stage_error(node.id, "expand", error);
    }
  }

  nlohmann::json seed_ids = result.seed_ids;
  nlohmann::json expanded = nlohmann::json::array();
  nlohmann::json tree = nlohmann::json::array();
  std::set<std::string> listed;
  for (const auto& n : result.nodes) {
    if (!listed.insert(n.id).second) continue;
    expanded.push_back(n.id);
    tree.push_back({{"id", n.id},
                    {"depth", n.depth},
                    {"parent_id", n.parent_id ? nlohmann::json(*n.parent_id) : nlohmann::json()}});
  }
  nlohmann::json edges = nlohmann::json::array();
  for (const auto& e : result.edges) {
    edges.push_back({{"from_id", e.from_id}, {"to_id", e.to_id}, {"edge_type", e.edge_type}});
  }
  std::string reason = result.reason.empty() ? (result.truncated ? "limit_reached" : "ok") : result.reason;
  nlohmann::json debug = {{"seed_count", seed_ids.size()},
                          {"expanded_count", expanded.size()},
                          {"edges_count", edges.size()},
                          {"truncated", result.truncated},
                          {"reason", reason},
                          {"max_depth", max_depth},
                          {"max_nodes", max_nodes},
                          {"edge_allowlist", *allowlist}};
  env.emit(kExpandDependencyTreeEvent, {{"node_id", node.id}, {"graph_debug", debug}});

  Outcome outcome = Outcome::success(fmt::format("{} seeds expanded to {} nodes, {} edges ({})", seed_ids.size(),
                                                 expanded.size(), edges.size(), reason));
  outcome.context_updates["graph_seed_nodes"] = std::move(seed_ids);
  outcome.context_updates["graph_expanded_nodes"] = std::move(expanded);
  outcome.context_updates["graph_edges"] = std::move(edges);
  outcome.context_updates["graph_nodes"] = std::move(tree);
  outcome.context_updates["graph_debug"] = std::move(debug);
  hide_retrieval_keys_from_preambles(context, outcome);
  outcome.suggested_next_ids = retrieval_next_ids(node);
  return outcome;
}

const HandlerDescription& expand_dependency_tree_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "expand_dependency_tree";
    d.shapes = {};
    d.summary = "Walks the code graph from the search hits along allowed edge types.";
    d.attributes = {
        {"max_depth_from_settings", AttributeType::kString, "",
         "Name of the graph attribute that holds the walk depth, an integer >= 0 (required)."},
        {"max_nodes_from_settings", AttributeType::kString, "",
         "Name of the graph attribute that holds the most nodes to collect, an integer >= 1 (required)."},
        {"edge_allowlist_from_settings", AttributeType::kString, "",
         "Name of the graph attribute that lists the edge types to follow, comma-separated or a JSON list; "
         "~type follows an edge backwards (required)."},
    };
    for (AttributeSpec& shared : retrieval_step_attributes()) d.attributes.push_back(std::move(shared));
    return d;
  }();
  return description;
}

}  // namespace attractor
