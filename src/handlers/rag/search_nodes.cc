#include "handlers/rag/search_nodes.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "attractor/model/value.h"
#include "handlers/rag/jsonish_query.h"
#include "handlers/rag/keyword_rerank.h"

namespace attractor {

namespace {

using retrieval::SearchType;

[[noreturn]] void config_error(const NodeData& node, const std::string& message) {
  throw StageError(fmt::format("node '{}': {}", node.id, message), ErrorCategory::kTerminal);
}

/// A positive count from a node attribute, else from a graph setting (when `setting` is true).
std::optional<std::int64_t> read_count(const NodeData& node, const Graph& graph, const std::string& key,
                                       bool from_settings) {
  const Value* value = node.find(key);
  std::string where = "node attribute";
  if (!value && from_settings) {
    value = graph.data().find(key);
    where = "graph attribute";
  }
  if (!value) return std::nullopt;
  auto number = parse_integer(value->text);
  if (!number || *number < 1 || *number > std::numeric_limits<std::int32_t>::max()) {
    config_error(node, fmt::format("{} ({}) must be an integer >= 1, got '{}'", key, where, value->text));
  }
  return number;
}

bool read_flag(const NodeData& node, const std::string& key) {
  const Value* value = node.find(key);
  if (!value) return false;
  auto flag = parse_boolean(value->text);
  if (!flag) config_error(node, fmt::format("{} must be one of true | false, got '{}'", key, value->text));
  return *flag;
}

/// A string safe for any JSON writer (invalid UTF-8 replaced).
std::string printable(const std::string& text) {
  return nlohmann::json::parse(nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .get<std::string>();
}

struct SearchConfig {
  SearchType search_type = SearchType::kSemantic;
  int top_k = 0;
  int rrf_k = 60;
  std::string rerank = "none";
  bool jsonish = false;
  bool allow_top_k = false;
  bool allow_rrf_k = false;
};

SearchConfig read_config(const NodeData& node, const Graph& graph) {
  SearchConfig c;
  if (!node.has("search_type")) config_error(node, "search_type is required (one of semantic | bm25 | hybrid)");
  auto type = retrieval::parse_search_type(node.get("search_type"));
  if (!type) {
    config_error(node, fmt::format("search_type must be one of semantic | bm25 | hybrid, got '{}'", node.get("search_type")));
  }
  c.search_type = *type;

  auto top_k = read_count(node, graph, "top_k", true);
  if (!top_k) {
    config_error(node, "top_k is required: set node attribute top_k or graph attribute top_k (an integer >= 1)");
  }
  c.top_k = static_cast<int>(*top_k);
  if (auto rrf_k = read_count(node, graph, "rrf_k", false)) c.rrf_k = static_cast<int>(*rrf_k);

  c.rerank = node.get("rerank", "none");
  if (c.rerank != "none" && c.rerank != "keyword_rerank" && c.rerank != "codebert_rerank") {
    config_error(node, fmt::format("rerank must be one of none | keyword_rerank | codebert_rerank, got '{}'", c.rerank));
  }
  if (c.rerank != "none" && c.search_type != SearchType::kSemantic) {
    config_error(node, fmt::format("rerank={} is only allowed with search_type=semantic, got search_type={} "
                                   "(allowed rerank for {}: none)",
                                   c.rerank, retrieval::to_string(c.search_type), retrieval::to_string(c.search_type)));
  }

  std::string parser = node.get("query_parser", "none");
  if (parser == "jsonish_v1") c.jsonish = true;
  else if (parser != "none") config_error(node, fmt::format("query_parser must be one of none | jsonish_v1, got '{}'", parser));
  c.allow_top_k = read_flag(node, "allow_top_k_from_payload");
  c.allow_rrf_k = read_flag(node, "allow_rrf_k_from_payload");
  return c;
}

std::string read_model_response(const NodeData& node, const Context& context) {
  auto value = context.get("last_model_response");
  if (!value || value->is_null()) {
    config_error(node, "context key 'last_model_response' is required (it is the query)");
  }
  return value->is_string() ? value->get<std::string>() : value->dump();
}

}  // namespace

const std::vector<std::pair<std::string, nlohmann::json>>& search_nodes_cleanup_keys() {
  static const std::vector<std::pair<std::string, nlohmann::json>> keys = {
      {"retrieval_seed_nodes", nlohmann::json::array()}, {"retrieval_hits", nlohmann::json::array()},
      {"graph_seed_nodes", nlohmann::json::array()},     {"graph_expanded_nodes", nlohmann::json::array()},
      {"graph_edges", nlohmann::json::array()},          {"graph_nodes", nlohmann::json::array()},
      {"graph_debug", nlohmann::json::object()},         {"graph_node_texts", nlohmann::json::array()},
      {"context_blocks", nlohmann::json::array()},       {"last_search_bm25_operator", nullptr},
  };
  return keys;
}

std::vector<std::string> retrieval_next_ids(const NodeData& node) {
  std::string next = node.get("on_ok");
  if (next.empty()) next = node.get("next");
  if (next.empty()) return {};
  return {next};
}

SearchNodesHandler::SearchNodesHandler(std::shared_ptr<RetrievalBackendProvider> provider, int widen_factor)
    : provider_(std::move(provider)), widen_factor_(widen_factor) {
  if (widen_factor_ < 1) throw std::invalid_argument("search_nodes widen_factor must be >= 1");
}

Outcome SearchNodesHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  for (const auto& [key, empty] : search_nodes_cleanup_keys()) context.set(key, empty);
  if (context.has("node_texts")) context.set("node_texts", nlohmann::json::array());

  RetrievalScope scope = read_retrieval_scope(node, context, graph);
  SearchConfig config = read_config(node, graph);
  std::string response = read_model_response(node, context);

  JsonishQuery payload;
  if (config.jsonish) {
    payload = parse_jsonish_query(response);
  } else {
    std::string_view text = response;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    payload.query = std::string(text);
  }
  std::vector<std::string> warnings = payload.warnings;

  SearchType search_type = config.search_type;
  std::string rerank = config.rerank;
  if (payload.search_type) {
    if (*payload.search_type == "semantic_rerank") {
      search_type = SearchType::kSemantic;
      if (rerank == "none") rerank = "keyword_rerank";
    } else {
      search_type = *retrieval::parse_search_type(*payload.search_type);
      if (search_type != SearchType::kSemantic && rerank != "none") {
        warnings.push_back(fmt::format("rerank={} not applied: the payload selected search_type={}", rerank,
                                       *payload.search_type));
        rerank = "none";
      }
    }
  }
  int top_k = config.top_k;
  if (payload.top_k) {
    if (config.allow_top_k) top_k = static_cast<int>(*payload.top_k);
    else warnings.push_back("payload top_k ignored: allow_top_k_from_payload is not true");
  }
  int rrf_k = config.rrf_k;
  if (payload.rrf_k) {
    if (!config.allow_rrf_k) warnings.push_back("payload rrf_k ignored: allow_rrf_k_from_payload is not true");
    else if (search_type != SearchType::kHybrid) warnings.push_back("payload rrf_k ignored: the search is not hybrid");
    else rrf_k = static_cast<int>(*payload.rrf_k);
  }
  std::optional<std::string> bm25_operator;
  if (payload.match_operator) {
    if (search_type == SearchType::kBm25) bm25_operator = payload.match_operator;
    else warnings.push_back("payload match_operator ignored: the search is not bm25");
  }
  if (payload.query.empty()) {
    config_error(node, fmt::format("query is empty after parsing last_model_response (query_parser={}); "
                                   "allowed: a non-empty query text",
                                   config.jsonish ? "jsonish_v1" : "none"));
  }
  if (rerank == "codebert_rerank") {
    config_error(node, "rerank=codebert_rerank is reserved and not available in this build "
                       "(allowed today: none | keyword_rerank)");
  }

  nlohmann::json filters = merge_filters(payload.filters, scope.filters, &warnings);

  retrieval::SearchRequest request;
  request.search_type = search_type;
  request.query = payload.query;
  request.repository = scope.repository;
  request.branch = scope.branch;
  request.retrieval_filters = filters;
  request.active_index = scope.active_index;
  if (search_type == SearchType::kHybrid) request.rrf_k = rrf_k;
  if (bm25_operator) request.match_operator = retrieval::parse_match_operator(*bm25_operator);
  std::int64_t widened = rerank == "keyword_rerank"
                             ? std::min<std::int64_t>(static_cast<std::int64_t>(top_k) * widen_factor_,
                                                      std::numeric_limits<std::int32_t>::max())
                             : top_k;
  request.top_k = static_cast<int>(widened);

  std::shared_ptr<retrieval::IRetrievalBackend> backend = provider_->backend_for(graph);
  if (!backend) throw StageError("node '" + node.id + "': no retrieval backend", ErrorCategory::kTerminal);
  std::vector<retrieval::SearchHit> hits;
  try {
    hits = backend->search(request).hits;
    if (rerank == "keyword_rerank") {
      std::vector<std::string> ids;
      for (const auto& hit : hits) ids.push_back(hit.id);
      auto texts = backend->fetch_texts(ids, scope.repository, scope.branch, filters, scope.active_index);
      hits = keyword_rerank(payload.query, hits, texts, top_k);
    }
  } catch (const retrieval::RetrievalError& error) {
    throw_retrieval_stage_error(node.id, "search", error);
  }

  nlohmann::json seeds = nlohmann::json::array();
  nlohmann::json hit_list = nlohmann::json::array();
  for (const auto& hit : hits) {
    seeds.push_back(hit.id);
    hit_list.push_back({{"id", hit.id}, {"score", hit.score}, {"rank", hit.rank}});
  }
  nlohmann::json op = bm25_operator ? nlohmann::json(*bm25_operator) : nlohmann::json(nullptr);

  env.emit("SEARCH_NODES", {{"node_id", node.id},
                            {"query", printable(payload.query)},
                            {"query_parser", config.jsonish ? "jsonish_v1" : "none"},
                            {"search_type", retrieval::to_string(search_type)},
                            {"top_k", top_k},
                            {"rrf_k", search_type == SearchType::kHybrid ? nlohmann::json(rrf_k) : nlohmann::json()},
                            {"rerank", rerank},
                            {"candidates_requested", widened},
                            {"match_operator", op},
                            {"snapshot_source", scope.snapshot_source},
                            {"active_index", scope.active_index ? nlohmann::json(*scope.active_index) : nlohmann::json()},
                            {"filters_effective", filters},
                            {"hit_count", hits.size()},
                            {"warnings", warnings}});

  Outcome outcome = Outcome::success(fmt::format("{} seed nodes ({} search, top_k {}{})", hits.size(),
                                                 retrieval::to_string(search_type), top_k,
                                                 rerank == "none" ? "" : ", " + rerank));
  outcome.context_updates["retrieval_seed_nodes"] = std::move(seeds);
  outcome.context_updates["retrieval_hits"] = std::move(hit_list);
  outcome.context_updates["last_search_bm25_operator"] = op;
  outcome.suggested_next_ids = retrieval_next_ids(node);
  return outcome;
}

const HandlerDescription& search_nodes_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "search_nodes";
    d.shapes = {};
    d.summary = "Searches the code index (bm25, semantic or hybrid) and stores the hits.";
    d.attributes = {
        {"search_type", AttributeType::kString, "",
         "semantic, bm25 or hybrid (required); the query is the context key last_model_response."},
        {"top_k", AttributeType::kInteger, "",
         "Hits to keep, an integer >= 1 (default: the graph's top_k; one of them is required)."},
        {"rrf_k", AttributeType::kInteger, "60",
         "Reciprocal rank fusion constant of hybrid searches, an integer >= 1."},
        {"rerank", AttributeType::kString, "none",
         "none or keyword_rerank (semantic searches only; codebert_rerank is reserved)."},
        {"query_parser", AttributeType::kString, "none",
         "none takes last_model_response as the query text; jsonish_v1 reads query, filters, search_type, "
         "top_k, rrf_k and match_operator from a JSON-like object."},
        {"allow_top_k_from_payload", AttributeType::kBoolean, "false",
         "Lets the jsonish_v1 payload's top_k replace top_k."},
        {"allow_rrf_k_from_payload", AttributeType::kBoolean, "false",
         "Lets the jsonish_v1 payload's rrf_k replace rrf_k in hybrid searches."},
        {"snapshot_source", AttributeType::kString, "primary",
         "Snapshot searched: primary (context key snapshot_id) or secondary (context key snapshot_id_b)."},
        {"on_ok", AttributeType::kNodeId, "",
         "Node to continue at (an outgoing edge to it must exist)."},
        {"next", AttributeType::kNodeId, "",
         "Node to continue at when on_ok is not set."},
    };
    return d;
  }();
  return description;
}

}  // namespace attractor
