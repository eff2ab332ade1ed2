#include "handlers/rag/manage_context_budget.h"

#include <fmt/format.h>

#include "handlers/rag/compact_code_rules.h"
#include "attractor/tokens/token_counter.h"
#include "handlers/rag/code_classifier.h"
#include "handlers/rag/code_compactor.h"

namespace attractor {
namespace {

[[noreturn]] void config_error(const NodeData& node, const std::string& message) {
  throw StageError(fmt::format("node '{}' (manage_context_budget): {}", node.id, message), ErrorCategory::kTerminal);
}

std::string string_field(const nlohmann::json& item, const char* key) {
  auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool demand_present(const nlohmann::json& consumed, const std::string& node_id, const std::string& topic) {
  for (const auto& msg : consumed) {
    if (string_field(msg, "target_step_id") == node_id && string_field(msg, "topic") == topic) return true;
  }
  return false;
}

}  // namespace

std::string format_node_block(std::string_view id, std::string_view path, std::string_view language, bool compact,
                              std::string_view text) {
  std::string out = "--- NODE ---\n";
  if (!id.empty()) out += fmt::format("id: {}\n", id);
  if (!path.empty()) out += fmt::format("path: {}\n", path);
  out += fmt::format("language: {}\ncompact: {}\ntext:\n", language, compact ? "true" : "false");
  out.append(text);
  return out;
}

Outcome ManageContextBudgetHandler::execute(const NodeData& node, Context& context, const Graph& graph,
                                            const StageEnv& env) {
  if (!graph.data().has("max_context_tokens")) {
    config_error(node, "graph attribute max_context_tokens (settings.max_context_tokens) is required");
  }
  std::string max_text = graph.data().get("max_context_tokens");
  std::optional<std::int64_t> max_tokens = parse_integer(max_text);
  if (!max_tokens || *max_tokens <= 0) {
    config_error(node, fmt::format("graph attribute max_context_tokens must be an integer > 0, got '{}'", max_text));
  }
  std::string on_ok = node.get("on_ok");
  std::string on_over = node.get("on_over");
  if (on_ok.empty()) config_error(node, "on_ok is required (the node to go to when the texts fit)");
  if (on_over.empty()) config_error(node, "on_over is required (the node to go to when the budget is exceeded)");
  std::vector<CompactRule> rules;
  if (node.has("compact_code")) {
    CompactRulesParse parsed = parse_compact_code_rules(node.get("compact_code"));
    if (parsed.error) config_error(node, parsed.error->message);
    rules = std::move(parsed.rules);
  }
  std::string divider = node.get("divide_new_content");

  nlohmann::json blocks = context.get("context_blocks").value_or(nlohmann::json::array());
  if (blocks.is_null()) blocks = nlohmann::json::array();
  if (!blocks.is_array()) config_error(node, "context key 'context_blocks' must be a list of strings");
  nlohmann::json node_texts = context.get("node_texts").value_or(nlohmann::json::array());
  if (node_texts.is_null()) node_texts = nlohmann::json::array();
  if (!node_texts.is_array()) config_error(node, "context key 'node_texts' must be a list");
  nlohmann::json consumed = context.get("inbox_last_consumed").value_or(nlohmann::json::array());
  if (!consumed.is_array()) consumed = nlohmann::json::array();

  std::shared_ptr<const TokenCounter> counter = token_counter_for_graph(graph);
  std::size_t context_tokens = 0;
  for (const auto& block : blocks) {
    if (!block.is_string()) config_error(node, "context key 'context_blocks' must list strings, got " + block.dump());
    context_tokens += counter->count(block.get_ref<const std::string&>());
  }

  const double limit = static_cast<double>(*max_tokens);
  std::size_t divider_tokens = !divider.empty() && !node_texts.empty() ? counter->count(divider) : 0;
  std::size_t buffer_tokens = divider_tokens;
  nlohmann::json new_blocks = nlohmann::json::array();
  nlohmann::json trace_nodes = nlohmann::json::array();
  for (const auto& item : node_texts) {
    if (!item.is_object() || !item.contains("text") || !item["text"].is_string()) {
      config_error(node, "context key 'node_texts' items must be objects with a string text, got " + item.dump());
    }
    const std::string& text = item["text"].get_ref<const std::string&>();
    std::string id = string_field(item, "id");
    if (id.empty()) id = string_field(item, "node_id");
    std::string path = string_field(item, "path");
    if (path.empty()) path = string_field(item, "source");
    CodeKind kind = classify_code(text);
    std::string language(code_language(kind));
    std::string raw_block = format_node_block(id, path, language, false, text);
    std::size_t before = counter->count(raw_block);
    const CompactRule* fired = nullptr;
    for (const CompactRule& rule : rules) {
      if (rule.language != language) continue;
      bool fires = false;
      switch (rule.policy) {
        case CompactPolicy::kAlways: fires = true; break;
        case CompactPolicy::kThreshold:
          fires = static_cast<double>(context_tokens + buffer_tokens + before) > rule.threshold * limit;
          break;
        case CompactPolicy::kDemand: fires = demand_present(consumed, node.id, rule.inbox_key); break;
      }
      if (fires) {
        fired = &rule;
        break;
      }
    }
    std::string block = fired ? format_node_block(id, path, language, true, compact_code(text, kind)) : raw_block;
    std::size_t after = fired ? counter->count(block) : before;
    buffer_tokens += after;
    new_blocks.push_back(std::move(block));
    trace_nodes.push_back({{"id", id},
                           {"language", language},
                           {"kind", std::string(code_kind_name(kind))},
                           {"policy", fired ? nlohmann::json(std::string(to_string(fired->policy))) : nlohmann::json()},
                           {"compacted", fired != nullptr},
                           {"tokens_before", before},
                           {"tokens_after", after}});
  }

  std::size_t total = context_tokens + buffer_tokens;
  bool misconfig = static_cast<std::int64_t>(buffer_tokens) > *max_tokens;
  bool fits = static_cast<std::int64_t>(total) <= *max_tokens;
  std::string decision = misconfig ? "error" : fits ? "on_ok" : "on_over";
  env.emit("MANAGE_CONTEXT_BUDGET", {{"node_id", node.id},
                                     {"decision", decision},
                                     {"next", misconfig ? nlohmann::json() : nlohmann::json(fits ? on_ok : on_over)},
                                     {"max_context_tokens", *max_tokens},
                                     {"context_tokens", context_tokens},
                                     {"divider_tokens", divider_tokens},
                                     {"node_texts_tokens", buffer_tokens},
                                     {"total_tokens", total},
                                     {"nodes", trace_nodes}});
  if (misconfig) {
    throw StageError(
        fmt::format("PIPELINE_BUDGET_MISCONFIG: fetch_node_texts produced retrieval texts that cannot fit into "
                    "settings.max_context_tokens (node '{}': {} node texts need {} tokens after compaction, "
                    "max_context_tokens is {})",
                    node.id, node_texts.size(), buffer_tokens, *max_tokens),
        ErrorCategory::kTerminal);
  }

  Outcome outcome;
  if (fits) {
    outcome = Outcome::success(fmt::format("appended {} node texts ({} tokens); context now {} of {} tokens",
                                           node_texts.size(), buffer_tokens, total, *max_tokens));
    if (!node_texts.empty()) {
      if (!divider.empty()) blocks.push_back(divider);
      for (auto& b : new_blocks) blocks.push_back(std::move(b));
    }
    outcome.context_updates["context_blocks"] = std::move(blocks);
    outcome.context_updates["node_texts"] = nlohmann::json::array();
    outcome.suggested_next_ids = {on_ok};
  } else {
    outcome = Outcome::success(fmt::format("over budget: context {} + node texts {} = {} > {} tokens", context_tokens,
                                           buffer_tokens, total, *max_tokens));
    for (const CompactRule& rule : rules) {
      if (rule.policy != CompactPolicy::kDemand) continue;
      for (const auto& msg : consumed) {
        if (string_field(msg, "target_step_id") != node.id || string_field(msg, "topic") != rule.inbox_key) continue;
        nlohmann::json again = {{"target_step_id", node.id},
                                {"topic", rule.inbox_key},
                                {"payload", msg.contains("payload") ? msg["payload"] : nlohmann::json()}};
        bool duplicate = false;
        for (const auto& m : outcome.messages) duplicate = duplicate || m == again;
        if (!duplicate) outcome.messages.push_back(std::move(again));
      }
    }
    outcome.suggested_next_ids = {on_over};
  }
  return outcome;
}

namespace {

/// `compact_code` is a valid rule list; the caret points inside the value.
void check_compact_code(const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out) {
  const Value* value = node.find("compact_code");
  if (value == nullptr) return;
  CompactRulesParse parsed = parse_compact_code_rules(value->text);
  if (!parsed.error) return;
  SourceLocation location = graph.source() ? locate_in_value(*graph.source(), *value, parsed.error->offset)
                                           : value->location;
  if (!location.known()) location = node.location;
  out.push_back(make_diagnostic("compact_code_rules", Severity::kError,
                                fmt::format("node '{}': {}", node.id, parsed.error->message), node.id,
                                "compact_code is {\"rules\": [{\"language\": \"sql\"|\"dotnet\", \"policy\": "
                                "\"always\"|\"threshold\"|\"demand\", \"threshold\": (0, 1], \"inbox_key\": \"...\"}]}",
                                location));
}

/// The graph sets max_context_tokens > 0 and the node names both routes.
void check_budget_routes(const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out) {
  std::optional<std::int64_t> max = graph.data().get_integer("max_context_tokens");
  if (!max || *max <= 0) {
    const Value* at = graph.data().find("max_context_tokens");
    out.push_back(make_diagnostic(
        "context_budget_settings", Severity::kError,
        fmt::format("node '{}' (manage_context_budget) needs graph attribute max_context_tokens (an integer > 0){}",
                    node.id,
                    graph.data().has("max_context_tokens") ? ", got '" + graph.data().get("max_context_tokens") + "'"
                                                           : std::string()),
        node.id, "add max_context_tokens=N to the graph [...] block",
        at != nullptr && at->location.known() ? at->location : node.location));
  }
  for (const char* route : {"on_ok", "on_over"}) {
    if (node.get(route).empty()) {
      out.push_back(make_diagnostic("context_budget_settings", Severity::kError,
                                    fmt::format("node '{}' (manage_context_budget) needs {}", node.id, route), node.id,
                                    fmt::format("add {}=\"<node id>\" and a matching outgoing edge", route),
                                    node.location));
    }
  }
}

}  // namespace

const HandlerDescription& manage_context_budget_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "manage_context_budget";
    d.shapes = {};
    d.summary = "Keeps the prompt context within the run budget by compacting code and routing on_ok / on_over.";
    d.attributes = {
        {"on_ok", AttributeType::kNodeId, "",
         "Node to continue at when the new node texts fit max_context_tokens (required)."},
        {"on_over", AttributeType::kNodeId, "",
         "Node to continue at when they do not fit (required)."},
        {"compact_code", AttributeType::kJson, "",
         "Compaction rules: {\"rules\": [{\"language\": \"sql\" or \"dotnet\", \"policy\": \"always\", "
         "\"threshold\" or \"demand\", \"threshold\": (0, 1], \"inbox_key\": \"...\"}]}."},
        {"divide_new_content", AttributeType::kString, "",
         "Text block put between the existing context blocks and the appended node texts."},
    };
    d.checks = {{"compact_code_rules", check_compact_code}, {"context_budget_settings", check_budget_routes}};
    return d;
  }();
  return description;
}

}  // namespace attractor
