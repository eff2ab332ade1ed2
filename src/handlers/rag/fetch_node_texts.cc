#include "handlers/rag/fetch_node_texts.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "attractor/base/utf8.h"
#include "attractor/tokens/token_counter.h"
#include "handlers/rag/evidence_order.h"
#include "handlers/rag/search_nodes.h"
#include "attractor/engine/event_names.h"

namespace attractor {
namespace {

[[noreturn]] void fetch_config_error(const NodeData& node, const std::string& message) {
  throw StageError(fmt::format("node '{}' (fetch_node_texts): {}", node.id, message), ErrorCategory::kTerminal);
}

std::int64_t positive_integer(const NodeData& node, const std::string& what, const std::string& text) {
  std::optional<std::int64_t> value = parse_integer(text);
  if (!value) fetch_config_error(node, fmt::format("{} must be an integer, got '{}'", what, text));
  if (*value <= 0) fetch_config_error(node, fmt::format("{} must be > 0, got {}", what, *value));
  return *value;
}

std::vector<std::string> id_list(const NodeData& node, const Context& context, const std::string& key) {
  std::vector<std::string> ids;
  auto value = context.get(key);
  if (!value || value->is_null()) return ids;
  if (!value->is_array()) fetch_config_error(node, fmt::format("context key '{}' must be a list of node ids", key));
  for (const auto& item : *value) {
    if (!item.is_string()) {
      fetch_config_error(node, fmt::format("context key '{}' must list strings, got {}", key, item.dump()));
    }
    ids.push_back(item.get<std::string>());
  }
  return ids;
}

std::vector<retrieval::GraphEdge> edge_list(const NodeData& node, const Context& context) {
  std::vector<retrieval::GraphEdge> edges;
  auto value = context.get("graph_edges");
  if (!value || value->is_null()) return edges;
  if (!value->is_array()) fetch_config_error(node, "context key 'graph_edges' must be a list");
  for (const auto& item : *value) {
    if (!item.is_object() || !item.contains("from_id") || !item.contains("to_id") || !item["from_id"].is_string() ||
        !item["to_id"].is_string()) {
      fetch_config_error(node, "context key 'graph_edges' items need string from_id and to_id, got " + item.dump());
    }
    edges.push_back(
        {item["from_id"].get<std::string>(), item["to_id"].get<std::string>(), item.value("edge_type", std::string())});
  }
  return edges;
}

nlohmann::json optional_json(std::optional<std::int64_t> v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

std::size_t count_chars(std::string_view text) { return utf8_length(text); }

EvidenceBudget resolve_evidence_budget(const NodeData& node, const Graph& graph) {
  bool has_chars = node.has("max_chars");
  bool has_tokens = node.has("budget_tokens");
  bool has_settings = node.has("budget_tokens_from_settings");
  if (has_chars && (has_tokens || has_settings)) {
    fetch_config_error(node,
                       fmt::format("max_chars cannot be used together with {}; choose either max_chars or a token "
                                   "budget",
                                   has_tokens ? "budget_tokens" : "budget_tokens_from_settings"));
  }
  if (has_tokens && has_settings) {
    fetch_config_error(node, "budget_tokens and budget_tokens_from_settings are exclusive; set exactly one budget");
  }
  EvidenceBudget budget;
  if (has_chars) {
    budget.chars = true;
    budget.limit = positive_integer(node, "max_chars", node.get("max_chars"));
    budget.source = "max_chars";
  } else if (has_tokens) {
    budget.limit = positive_integer(node, "budget_tokens", node.get("budget_tokens"));
    budget.source = "budget_tokens";
  } else if (has_settings) {
    std::string key = node.get("budget_tokens_from_settings");
    if (key.empty()) fetch_config_error(node, "budget_tokens_from_settings must name a graph attribute");
    if (!graph.data().has(key)) {
      fetch_config_error(node,
                         fmt::format("budget_tokens_from_settings names graph attribute '{}', which is not set", key));
    }
    budget.limit = positive_integer(node, fmt::format("graph attribute {} (from budget_tokens_from_settings)", key),
                                    graph.data().get(key));
    budget.source = "budget_tokens_from_settings";
  } else {
    if (!graph.data().has("max_context_tokens")) {
      fetch_config_error(node,
                         "no budget configured (max_chars, budget_tokens or budget_tokens_from_settings) and graph "
                         "attribute max_context_tokens (settings.max_context_tokens) is missing");
    }
    std::int64_t max_context = positive_integer(node, "graph attribute max_context_tokens",
                                                graph.data().get("max_context_tokens"));
    budget.limit = max_context * 7 / 10;
    if (budget.limit <= 0) {
      fetch_config_error(node,
                         fmt::format("the implicit budget floor(0.70 * max_context_tokens = {}) is {}; it must be > 0",
                                     max_context, budget.limit));
    }
    budget.source = "implicit";
  }
  return budget;
}

namespace {

/// The checked node settings: the candidate order and the budget.
struct FetchConfig {
  PrioritizationMode mode = PrioritizationMode::kBalanced;
  EvidenceBudget budget;
};

FetchConfig read_fetch_config(const NodeData& node, const Graph& graph) {
  std::string mode_text = node.get("prioritization_mode", "balanced");
  std::optional<PrioritizationMode> mode = parse_prioritization_mode(mode_text);
  if (!mode) {
    fetch_config_error(
        node,
        fmt::format("prioritization_mode must be one of seed_first | graph_first | balanced, got '{}'", mode_text));
  }
  return {*mode, resolve_evidence_budget(node, graph)};
}

/// The ordered candidates and the number of distinct seeds and expanded nodes they came from.
struct Candidates {
  std::vector<EvidenceCandidate> list;
  std::size_t seed_count = 0;
  std::size_t expanded_count = 0;
};

Candidates read_candidates(const NodeData& node, const Context& context, PrioritizationMode mode) {
  std::vector<std::string> seeds = id_list(node, context, "retrieval_seed_nodes");
  if (seeds.empty()) seeds = id_list(node, context, "graph_seed_nodes");
  std::vector<std::string> expanded = id_list(node, context, "graph_expanded_nodes");
  std::vector<retrieval::GraphEdge> edges = edge_list(node, context);
  return {order_candidates(seeds, expanded, edges, mode), std::set<std::string>(seeds.begin(), seeds.end()).size(),
          std::set<std::string>(expanded.begin(), expanded.end()).size()};
}

/// The `node_texts` items and the budget accounting of one fetch.
struct FetchedTexts {
  nlohmann::json node_texts = nlohmann::json::array();
  std::size_t used_tokens = 0;
  std::size_t used_chars = 0;
  std::size_t skipped = 0;  ///< over budget
  std::size_t missing = 0;  ///< no text visible
};

/// The candidates whose texts fit, in candidate order, with their texts.
struct Selection {
  std::vector<const EvidenceCandidate*> candidates;
  std::vector<const std::string*> texts;
};

Selection select_within_budget(const std::vector<EvidenceCandidate>& candidates,
                               const std::map<std::string, std::string>& texts, const EvidenceBudget& budget,
                               const TokenCounter& counter, FetchedTexts& fetched) {
  Selection selection;
  for (const EvidenceCandidate& c : candidates) {
    auto it = texts.find(c.id);
    if (it == texts.end()) {
      ++fetched.missing;
      continue;
    }
    std::size_t chars = count_chars(it->second);
    std::size_t tokens = counter.count(it->second);
    std::size_t cost = budget.chars ? chars : tokens;
    std::size_t used = budget.chars ? fetched.used_chars : fetched.used_tokens;
    if (used + cost > static_cast<std::size_t>(budget.limit)) {
      ++fetched.skipped;
      continue;
    }
    fetched.used_chars += chars;
    fetched.used_tokens += tokens;
    selection.candidates.push_back(&c);
    selection.texts.push_back(&it->second);
  }
  return selection;
}

std::map<std::string, retrieval::NodeInfo> describe_selection(const NodeData& node,
                                                              retrieval::IRetrievalBackend& backend,
                                                              const RetrievalScope& scope, const Selection& selection) {
  std::map<std::string, retrieval::NodeInfo> info;
  if (selection.candidates.empty()) return info;
  std::vector<std::string> ids;
  for (const EvidenceCandidate* c : selection.candidates) ids.push_back(c->id);
  try {
    for (auto& n : backend.describe(ids, scope.repository, scope.branch, scope.filters, scope.active_index)) {
      info.emplace(n.id, std::move(n));
    }
  } catch (const retrieval::RetrievalError& error) {
    throw_retrieval_stage_error(node.id, "describe", error);
  }
  return info;
}

nlohmann::json node_text_item(const EvidenceCandidate& c, const std::string& text,
                              const std::map<std::string, retrieval::NodeInfo>& info) {
  auto it = info.find(c.id);
  return {{"id", c.id},
          {"node_id", c.id},
          {"text", text},
          {"is_seed", c.is_seed},
          {"depth", c.depth},
          {"parent_id", c.parent_id ? nlohmann::json(*c.parent_id) : nlohmann::json()},
          {"path", it != info.end() ? nlohmann::json(it->second.path) : nlohmann::json()},
          {"language", it != info.end() ? nlohmann::json(it->second.language) : nlohmann::json()}};
}

FetchedTexts fetch_within_budget(const NodeData& node, const Graph& graph, retrieval::IRetrievalBackend& backend,
                                 const RetrievalScope& scope, const EvidenceBudget& budget,
                                 const std::vector<EvidenceCandidate>& candidates) {
  std::vector<std::string> ids;
  for (const EvidenceCandidate& c : candidates) ids.push_back(c.id);
  std::map<std::string, std::string> texts;
  try {
    texts = backend.fetch_texts(ids, scope.repository, scope.branch, scope.filters, scope.active_index);
  } catch (const retrieval::RetrievalError& error) {
    throw_retrieval_stage_error(node.id, "fetch_texts", error);
  }
  FetchedTexts fetched;
  Selection selection = select_within_budget(candidates, texts, budget, *token_counter_for_graph(graph), fetched);
  std::map<std::string, retrieval::NodeInfo> info = describe_selection(node, backend, scope, selection);
  for (std::size_t i = 0; i < selection.candidates.size(); ++i) {
    fetched.node_texts.push_back(node_text_item(*selection.candidates[i], *selection.texts[i], info));
  }
  return fetched;
}

/// The previous `graph_debug` object with this step's counts and budget.
nlohmann::json graph_debug(const Context& context, const std::string& reason, const FetchConfig& config,
                           const Candidates& candidates, const FetchedTexts& fetched) {
  nlohmann::json debug = nlohmann::json::object();
  if (auto previous = context.get("graph_debug"); previous && previous->is_object()) debug = *previous;
  const EvidenceBudget& budget = config.budget;
  debug["reason"] = reason;
  debug["prioritization_mode"] = std::string(to_string(config.mode));
  debug["seed_count"] = candidates.seed_count;
  debug["graph_expanded_count"] = candidates.expanded_count;
  debug["candidate_count"] = candidates.list.size();
  debug["node_texts_count"] = fetched.node_texts.size();
  debug["skipped_count"] = fetched.skipped;
  debug["missing_count"] = fetched.missing;
  debug["budget_source"] = budget.source;
  debug["budget_tokens"] = optional_json(budget.chars ? std::nullopt : std::optional<std::int64_t>(budget.limit));
  debug["used_tokens"] = fetched.used_tokens;
  debug["max_chars"] = optional_json(budget.chars ? std::optional<std::int64_t>(budget.limit) : std::nullopt);
  debug["used_chars"] = fetched.used_chars;
  return debug;
}

}  // namespace

Outcome FetchNodeTextsHandler::execute(const NodeData& node, Context& context, const Graph& graph,
                                       const StageEnv& env) {
  FetchConfig config = read_fetch_config(node, graph);
  RetrievalScope scope = read_retrieval_scope(node, context, graph);
  Candidates candidates = read_candidates(node, context, config.mode);

  FetchedTexts fetched;
  if (!candidates.list.empty()) {
    std::shared_ptr<retrieval::IRetrievalBackend> backend = provider_->backend_for(graph);
    if (!backend) throw StageError("node '" + node.id + "': no retrieval backend", ErrorCategory::kTerminal);
    fetched = fetch_within_budget(node, graph, *backend, scope, config.budget, candidates.list);
  }

  std::string reason = candidates.list.empty() ? "no_nodes_for_fetch_node_texts" : "ok";
  nlohmann::json debug = graph_debug(context, reason, config, candidates, fetched);
  env.emit(kFetchNodeTextsEvent, {{"node_id", node.id},
                                  {"reason", reason},
                                  {"node_texts_count", fetched.node_texts.size()},
                                  {"skipped_count", fetched.skipped},
                                  {"missing_count", fetched.missing},
                                  {"used_tokens", fetched.used_tokens},
                                  {"used_chars", fetched.used_chars}});
  Outcome outcome = Outcome::success(
      candidates.list.empty()
          ? std::string("no node ids to fetch")
          : fmt::format("{} of {} candidate texts fetched ({} over budget, {} not visible)", fetched.node_texts.size(),
                        candidates.list.size(), fetched.skipped, fetched.missing));
  outcome.context_updates["node_texts"] = std::move(fetched.node_texts);
  outcome.context_updates["graph_debug"] = std::move(debug);
  hide_retrieval_keys_from_preambles(context, outcome);
  outcome.suggested_next_ids = retrieval_next_ids(node);
  return outcome;
}

namespace {

/// prioritization_mode is one of the three strategies and exactly one budget is set.
void check_fetch_budget(const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out) {
  std::string mode = node.get("prioritization_mode", "balanced");
  if (!parse_prioritization_mode(mode)) {
    out.push_back(
        make_diagnostic("context_budget_settings", Severity::kError,
                        fmt::format("node '{}': prioritization_mode must be one of seed_first | graph_first | "
                                    "balanced, got '{}'",
                                    node.id, mode),
                        node.id, "use seed_first, graph_first or balanced",
                        value_location(node.find("prioritization_mode"), node.location)));
  }
  try {
    resolve_evidence_budget(node, graph);
  } catch (const StageError& e) {
    std::optional<ValueView> at;
    for (const char* key : {"max_chars", "budget_tokens", "budget_tokens_from_settings"}) {
      if (!at) at = node.find(key);
    }
    out.push_back(make_diagnostic("context_budget_settings", Severity::kError, e.what(), node.id,
                                  "set exactly one of max_chars, budget_tokens, budget_tokens_from_settings, or a "
                                  "graph max_context_tokens > 1 for the implicit 70% budget",
                                  value_location(at, node.location)));
  }
}

}  // namespace

const HandlerDescription& fetch_node_texts_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "fetch_node_texts";
    d.shapes = {};
    d.summary = "Fetches the text of the selected code nodes within a token or character budget.";
    d.attributes = {
        {"prioritization_mode", AttributeType::kString, "balanced",
         "Order in which candidates take the budget: seed_first, graph_first or balanced."},
        {"max_chars", AttributeType::kInteger, "",
         "Budget in characters, an integer > 0 (exclusive with the token budgets)."},
        {"budget_tokens", AttributeType::kInteger, "",
         "Budget in tokens, an integer > 0 (without any budget: 70% of the graph's max_context_tokens)."},
        {"budget_tokens_from_settings", AttributeType::kString, "",
         "Name of the graph attribute that holds the token budget (exclusive with budget_tokens)."},
    };
    for (AttributeSpec& shared : retrieval_step_attributes()) d.attributes.push_back(std::move(shared));
    d.checks = {{"context_budget_settings", check_fetch_budget}};
    return d;
  }();
  return description;
}

}  // namespace attractor
