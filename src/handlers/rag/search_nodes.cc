#include "handlers/rag/search_nodes.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "attractor/model/value.h"
#include "handlers/rag/jsonish_query.h"
#include "handlers/rag/keyword_rerank.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace {

using retrieval::SearchType;

[[noreturn]] void search_config_error(const NodeData& node, const std::string& message) {
  throw StageError(fmt::format("node '{}': {}", node.id, message), ErrorCategory::kTerminal);
}

/// A positive count from a node attribute, else from a graph setting (when `setting` is true).
std::optional<std::int64_t> read_count(const NodeData& node, const Graph& graph, const std::string& key,
                                       bool from_settings) {
  auto value = node.find(key);
  std::string where = "node attribute";
  if (!value && from_settings) {
    value = graph.data().find(key);
    where = "graph attribute";
  }
  if (!value) return std::nullopt;
  auto number = parse_integer(value->text());
  if (!number || *number < 1 || *number > std::numeric_limits<std::int32_t>::max()) {
    search_config_error(node, fmt::format("{} ({}) must be an integer >= 1, got '{}'", key, where, value->text()));
  }
  return number;
}

bool read_flag(const NodeData& node, const std::string& key) {
  auto value = node.find(key);
  if (!value) return false;
  auto flag = parse_boolean(value->text());
  if (!flag) search_config_error(node, fmt::format("{} must be one of true | false, got '{}'", key, value->text()));
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
  if (!node.has("search_type")) search_config_error(node, "search_type is required (one of semantic | bm25 | hybrid)");
  auto type = retrieval::parse_search_type(node.get("search_type"));
  if (!type) {
    search_config_error(
        node, fmt::format("search_type must be one of semantic | bm25 | hybrid, got '{}'", node.get("search_type")));
  }
  c.search_type = *type;

  auto top_k = read_count(node, graph, "top_k", true);
  if (!top_k) {
    search_config_error(node, "top_k is required: set node attribute top_k or graph attribute top_k (an integer >= 1)");
  }
  c.top_k = static_cast<int>(*top_k);
  if (auto rrf_k = read_count(node, graph, "rrf_k", false)) c.rrf_k = static_cast<int>(*rrf_k);

  c.rerank = node.get("rerank", "none");
  if (c.rerank != "none" && c.rerank != "keyword_rerank" && c.rerank != "codebert_rerank") {
    search_config_error(
        node, fmt::format("rerank must be one of none | keyword_rerank | codebert_rerank, got '{}'", c.rerank));
  }
  if (c.rerank != "none" && c.search_type != SearchType::kSemantic) {
    search_config_error(
        node, fmt::format("rerank={} is only allowed with search_type=semantic, got search_type={} "
                          "(allowed rerank for {}: none)",
                          c.rerank, retrieval::to_string(c.search_type), retrieval::to_string(c.search_type)));
  }

  std::string parser = node.get("query_parser", "none");
  if (parser == "jsonish_v1") c.jsonish = true;
  else if (parser != "none")
    search_config_error(node, fmt::format("query_parser must be one of none | jsonish_v1, got '{}'", parser));
  c.allow_top_k = read_flag(node, "allow_top_k_from_payload");
  c.allow_rrf_k = read_flag(node, "allow_rrf_k_from_payload");
  return c;
}

std::string read_model_response(const NodeData& node, const Context& context) {
  auto value = context.get(kLastModelResponseKey);
  if (!value || value->is_null()) {
    search_config_error(node, "context key 'last_model_response' is required (it is the query)");
  }
  return value->is_string() ? value->get<std::string>() : value->dump();
}

/// The query payload of `response`: parsed as jsonish_v1, or the trimmed text.
JsonishQuery read_payload(const SearchConfig& config, const std::string& response) {
  if (config.jsonish) return parse_jsonish_query(response);
  std::string_view text = response;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  JsonishQuery payload;
  payload.query = std::string(text);
  return payload;
}

/// The search the step runs: the node settings with the payload's allowed overrides.
struct EffectiveSearch {
  SearchType search_type = SearchType::kSemantic;
  std::string rerank;
  int top_k = 0;
  int rrf_k = 60;
  std::optional<std::string> bm25_operator;
  std::vector<std::string> warnings;
};

void apply_payload_search_type(const JsonishQuery& payload, EffectiveSearch& search) {
  if (!payload.search_type) return;
  if (*payload.search_type == "semantic_rerank") {
    search.search_type = SearchType::kSemantic;
    if (search.rerank == "none") search.rerank = "keyword_rerank";
    return;
  }
  search.search_type = *retrieval::parse_search_type(*payload.search_type);
  if (search.search_type != SearchType::kSemantic && search.rerank != "none") {
    search.warnings.push_back(
        fmt::format("rerank={} not applied: the payload selected search_type={}", search.rerank, *payload.search_type));
    search.rerank = "none";
  }
}

void apply_payload_counts(const SearchConfig& config, const JsonishQuery& payload, EffectiveSearch& search) {
  if (payload.top_k) {
    if (config.allow_top_k) search.top_k = static_cast<int>(*payload.top_k);
    else search.warnings.push_back("payload top_k ignored: allow_top_k_from_payload is not true");
  }
  if (payload.rrf_k) {
    if (!config.allow_rrf_k) search.warnings.push_back("payload rrf_k ignored: allow_rrf_k_from_payload is not true");
    else if (search.search_type != SearchType::kHybrid)
      search.warnings.push_back("payload rrf_k ignored: the search is not hybrid");
    else search.rrf_k = static_cast<int>(*payload.rrf_k);
  }
  if (payload.match_operator) {
    if (search.search_type == SearchType::kBm25) search.bm25_operator = payload.match_operator;
    else search.warnings.push_back("payload match_operator ignored: the search is not bm25");
  }
}

EffectiveSearch resolve_search(const NodeData& node, const SearchConfig& config, const JsonishQuery& payload) {
  EffectiveSearch search{config.search_type, config.rerank, config.top_k, config.rrf_k, std::nullopt, payload.warnings};
  apply_payload_search_type(payload, search);
  apply_payload_counts(config, payload, search);
  if (payload.query.empty()) {
    search_config_error(node, fmt::format("query is empty after parsing last_model_response (query_parser={}); "
                                          "allowed: a non-empty query text",
                                          config.jsonish ? "jsonish_v1" : "none"));
  }
  if (search.rerank == "codebert_rerank") {
    search_config_error(node,
                        "rerank=codebert_rerank is reserved and not available in this build "
                        "(allowed today: none | keyword_rerank)");
  }
  return search;
}

retrieval::SearchRequest make_request(const EffectiveSearch& search, const std::string& query,
                                      const RetrievalScope& scope, const nlohmann::json& filters, int widen_factor) {
  retrieval::SearchRequest request;
  request.search_type = search.search_type;
  request.query = query;
  request.repository = scope.repository;
  request.branch = scope.branch;
  request.retrieval_filters = filters;
  request.active_index = scope.active_index;
  if (search.search_type == SearchType::kHybrid) request.rrf_k = search.rrf_k;
  if (search.bm25_operator) request.match_operator = retrieval::parse_match_operator(*search.bm25_operator);
  std::int64_t widened = search.rerank == "keyword_rerank"
                             ? std::min<std::int64_t>(static_cast<std::int64_t>(search.top_k) * widen_factor,
                                                      std::numeric_limits<std::int32_t>::max())
                             : search.top_k;
  request.top_k = static_cast<int>(widened);
  return request;
}

/// The backend's hits for `request`, keyword-reranked down to top_k when the search asks for it.
std::vector<retrieval::SearchHit> run_search(const NodeData& node, retrieval::IRetrievalBackend& backend,
                                             const retrieval::SearchRequest& request, const EffectiveSearch& search) {
  std::vector<retrieval::SearchHit> hits;
  try {
    hits = backend.search(request).hits;
    if (search.rerank == "keyword_rerank") {
      std::vector<std::string> ids;
      for (const auto& hit : hits) ids.push_back(hit.id);
      auto texts = backend.fetch_texts(ids, request.repository, request.branch, request.retrieval_filters,
                                       request.active_index);
      hits = keyword_rerank(request.query, hits, texts, search.top_k);
    }
  } catch (const retrieval::RetrievalError& error) {
    throw_retrieval_stage_error(node.id, "search", error);
  }
  return hits;
}

nlohmann::json search_event(const NodeData& node, const SearchConfig& config, const EffectiveSearch& search,
                            const retrieval::SearchRequest& request, const RetrievalScope& scope,
                            std::size_t hit_count) {
  return {{"node_id", node.id},
          {"query", printable(request.query)},
          {"query_parser", config.jsonish ? "jsonish_v1" : "none"},
          {"search_type", retrieval::to_string(search.search_type)},
          {"top_k", search.top_k},
          {"rrf_k", search.search_type == SearchType::kHybrid ? nlohmann::json(search.rrf_k) : nlohmann::json()},
          {"rerank", search.rerank},
          {"candidates_requested", request.top_k},
          {"match_operator", search.bm25_operator ? nlohmann::json(*search.bm25_operator) : nlohmann::json(nullptr)},
          {"snapshot_source", scope.snapshot_source},
          {"active_index", scope.active_index ? nlohmann::json(*scope.active_index) : nlohmann::json()},
          {"filters_effective", request.retrieval_filters},
          {"hit_count", hit_count},
          {"warnings", search.warnings}};
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
  JsonishQuery payload = read_payload(config, read_model_response(node, context));
  EffectiveSearch search = resolve_search(node, config, payload);
  nlohmann::json filters = merge_filters(payload.filters, scope.filters, &search.warnings);
  retrieval::SearchRequest request = make_request(search, payload.query, scope, filters, widen_factor_);

  std::shared_ptr<retrieval::IRetrievalBackend> backend = provider_->backend_for(graph);
  if (!backend) throw StageError("node '" + node.id + "': no retrieval backend", ErrorCategory::kTerminal);
  std::vector<retrieval::SearchHit> hits = run_search(node, *backend, request, search);

  nlohmann::json seeds = nlohmann::json::array();
  nlohmann::json hit_list = nlohmann::json::array();
  for (const auto& hit : hits) {
    seeds.push_back(hit.id);
    hit_list.push_back({{"id", hit.id}, {"score", hit.score}, {"rank", hit.rank}});
  }
  env.emit(kSearchNodesEvent, search_event(node, config, search, request, scope, hits.size()));
  Outcome outcome = Outcome::success(fmt::format("{} seed nodes ({} search, top_k {}{})", hits.size(),
                                                 retrieval::to_string(search.search_type), search.top_k,
                                                 search.rerank == "none" ? "" : ", " + search.rerank));
  outcome.context_updates["retrieval_seed_nodes"] = std::move(seeds);
  outcome.context_updates["retrieval_hits"] = std::move(hit_list);
  outcome.context_updates["last_search_bm25_operator"] = search.bm25_operator ? nlohmann::json(*search.bm25_operator)
                                                                              : nlohmann::json(nullptr);
  hide_retrieval_keys_from_preambles(context, outcome);
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
    };
    for (AttributeSpec& shared : retrieval_step_attributes()) d.attributes.push_back(std::move(shared));
    return d;
  }();
  return description;
}

}  // namespace attractor
