#include "handlers/rag/manage_context_budget.h"

#include <algorithm>

#include <fmt/format.h>

#include "handlers/rag/compact_code_rules.h"
#include "attractor/tokens/token_counter.h"
#include "handlers/rag/code_classifier.h"
#include "handlers/rag/code_compactor.h"
#include "handlers/rag/retrieval_support.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"

namespace attractor {
namespace {

[[noreturn]] void budget_config_error(const NodeData& node, const std::string& message) {
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

/// The node's and the graph's settings, checked in the order the errors are reported.
struct BudgetConfig {
  std::int64_t max_tokens = 0;
  std::string on_ok;
  std::string on_over;
  std::vector<CompactRule> rules;
  std::string divider;
};

BudgetConfig read_budget_config(const NodeData& node, const Graph& graph) {
  if (!graph.data().has("max_context_tokens")) {
    budget_config_error(node, "graph attribute max_context_tokens (settings.max_context_tokens) is required");
  }
  std::string max_text = graph.data().get("max_context_tokens");
  std::optional<std::int64_t> max_tokens = parse_integer(max_text);
  if (!max_tokens || *max_tokens <= 0) {
    budget_config_error(node,
                        fmt::format("graph attribute max_context_tokens must be an integer > 0, got '{}'", max_text));
  }
  BudgetConfig config{*max_tokens, node.get("on_ok"), node.get("on_over"), {}, node.get("divide_new_content")};
  if (config.on_ok.empty()) budget_config_error(node, "on_ok is required (the node to go to when the texts fit)");
  if (config.on_over.empty())
    budget_config_error(node, "on_over is required (the node to go to when the budget is exceeded)");
  if (node.has("compact_code")) {
    CompactRulesParse parsed = parse_compact_code_rules(node.get("compact_code"));
    if (parsed.error) budget_config_error(node, parsed.error->message);
    config.rules = std::move(parsed.rules);
  }
  return config;
}

/// The context lists the handler reads; null or absent lists are empty.
struct BudgetInputs {
  nlohmann::json blocks;
  nlohmann::json node_texts;
  nlohmann::json consumed;
};

nlohmann::json context_list(const Context& context, const std::string& key) {
  nlohmann::json list = context.get(key).value_or(nlohmann::json::array());
  return list.is_null() ? nlohmann::json::array() : list;
}

BudgetInputs read_budget_inputs(const NodeData& node, const Context& context) {
  BudgetInputs in{context_list(context, "context_blocks"), context_list(context, "node_texts"),
                  context.get(kInboxLastConsumedKey).value_or(nlohmann::json::array())};
  if (!in.blocks.is_array()) budget_config_error(node, "context key 'context_blocks' must be a list of strings");
  if (!in.node_texts.is_array()) budget_config_error(node, "context key 'node_texts' must be a list");
  if (!in.consumed.is_array()) in.consumed = nlohmann::json::array();
  return in;
}

std::size_t count_context_tokens(const NodeData& node, const nlohmann::json& blocks, const TokenCounter& counter) {
  std::size_t tokens = 0;
  for (const auto& block : blocks) {
    if (!block.is_string())
      budget_config_error(node, "context key 'context_blocks' must list strings, got " + block.dump());
    tokens += counter.count(block.get_ref<const std::string&>());
  }
  return tokens;
}

/// The node texts turned into blocks, with the token totals the decision needs.
struct PackedTexts {
  std::size_t context_tokens = 0;
  std::size_t divider_tokens = 0;
  std::size_t buffer_tokens = 0;  ///< the divider and every block
  nlohmann::json blocks = nlohmann::json::array();
  nlohmann::json trace = nlohmann::json::array();  ///< per node, for MANAGE_CONTEXT_BUDGET
};

/// The first rule of `language` whose policy fires when the running total with the raw block is `running`.
const CompactRule* firing_rule(const BudgetConfig& config, const std::string& language, std::size_t running,
                               const nlohmann::json& consumed, const std::string& node_id) {
  for (const CompactRule& rule : config.rules) {
    if (rule.language != language) continue;
    bool fires = false;
    switch (rule.policy) {
      case CompactPolicy::kAlways: fires = true; break;
      case CompactPolicy::kThreshold:
        fires = static_cast<double>(running) > rule.threshold * static_cast<double>(config.max_tokens);
        break;
      case CompactPolicy::kDemand: fires = demand_present(consumed, node_id, rule.inbox_key); break;
    }
    if (fires) return &rule;
  }
  return nullptr;
}

/// Formats one node text (compacted when a rule fires) and adds it to `packed`.
void pack_node_text(const NodeData& node, const BudgetConfig& config, const nlohmann::json& consumed,
                    const TokenCounter& counter, const nlohmann::json& item, PackedTexts& packed) {
  if (!item.is_object() || !item.contains("text") || !item["text"].is_string()) {
    budget_config_error(node, "context key 'node_texts' items must be objects with a string text, got " + item.dump());
  }
  const std::string& text = item["text"].get_ref<const std::string&>();
  std::string id = string_field(item, "id");
  if (id.empty()) id = string_field(item, "node_id");
  std::string path = string_field(item, "path");
  if (path.empty()) path = string_field(item, "source");
  CodeKind kind = classify_code(text);
  std::string language(code_language(kind));
  std::string raw_block = format_node_block(id, path, language, false, text);
  std::size_t before = counter.count(raw_block);
  const CompactRule* fired = firing_rule(config, language, packed.context_tokens + packed.buffer_tokens + before,
                                         consumed, node.id);
  std::string block = fired ? format_node_block(id, path, language, true, compact_code(text, kind)) : raw_block;
  std::size_t after = fired ? counter.count(block) : before;
  packed.buffer_tokens += after;
  packed.blocks.push_back(std::move(block));
  packed.trace.push_back({{"id", id},
                          {"language", language},
                          {"kind", std::string(code_kind_name(kind))},
                          {"policy", fired ? nlohmann::json(std::string(to_string(fired->policy))) : nlohmann::json()},
                          {"compacted", fired != nullptr},
                          {"tokens_before", before},
                          {"tokens_after", after}});
}

PackedTexts pack_node_texts(const NodeData& node, const BudgetConfig& config, const BudgetInputs& in,
                            const TokenCounter& counter) {
  PackedTexts packed;
  packed.context_tokens = count_context_tokens(node, in.blocks, counter);
  packed.divider_tokens = !config.divider.empty() && !in.node_texts.empty() ? counter.count(config.divider) : 0;
  packed.buffer_tokens = packed.divider_tokens;
  for (const auto& item : in.node_texts) pack_node_text(node, config, in.consumed, counter, item, packed);
  return packed;
}

/// The consumed demand messages of every demand rule, addressed to this node again (no duplicates).
nlohmann::json requeued_demands(const NodeData& node, const BudgetConfig& config, const nlohmann::json& consumed) {
  nlohmann::json messages = nlohmann::json::array();
  for (const CompactRule& rule : config.rules) {
    if (rule.policy != CompactPolicy::kDemand) continue;
    for (const auto& msg : consumed) {
      if (string_field(msg, "target_step_id") != node.id || string_field(msg, "topic") != rule.inbox_key) continue;
      nlohmann::json again = {{"target_step_id", node.id},
                              {"topic", rule.inbox_key},
                              {"payload", msg.contains("payload") ? msg["payload"] : nlohmann::json()}};
      if (std::find(messages.begin(), messages.end(), again) == messages.end()) messages.push_back(std::move(again));
    }
  }
  return messages;
}

Outcome fitting_outcome(const BudgetConfig& config, BudgetInputs& in, PackedTexts& packed) {
  std::size_t total = packed.context_tokens + packed.buffer_tokens;
  Outcome outcome = Outcome::success(fmt::format("appended {} node texts ({} tokens); context now {} of {} tokens",
                                                 in.node_texts.size(), packed.buffer_tokens, total, config.max_tokens));
  if (!in.node_texts.empty()) {
    if (!config.divider.empty()) in.blocks.push_back(config.divider);
    for (auto& b : packed.blocks) in.blocks.push_back(std::move(b));
  }
  outcome.context_updates["context_blocks"] = std::move(in.blocks);
  outcome.context_updates["node_texts"] = nlohmann::json::array();
  outcome.suggested_next_ids = {config.on_ok};
  return outcome;
}

Outcome over_budget_outcome(const NodeData& node, const BudgetConfig& config, const BudgetInputs& in,
                            const PackedTexts& packed) {
  Outcome outcome = Outcome::success(fmt::format("over budget: context {} + node texts {} = {} > {} tokens",
                                                 packed.context_tokens, packed.buffer_tokens,
                                                 packed.context_tokens + packed.buffer_tokens, config.max_tokens));
  outcome.messages = requeued_demands(node, config, in.consumed);
  outcome.suggested_next_ids = {config.on_over};
  return outcome;
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
  BudgetConfig config = read_budget_config(node, graph);
  BudgetInputs in = read_budget_inputs(node, context);
  PackedTexts packed = pack_node_texts(node, config, in, *token_counter_for_graph(graph));

  std::size_t total = packed.context_tokens + packed.buffer_tokens;
  bool misconfig = static_cast<std::int64_t>(packed.buffer_tokens) > config.max_tokens;
  bool fits = static_cast<std::int64_t>(total) <= config.max_tokens;
  env.emit(kManageContextBudgetEvent,
           {{"node_id", node.id},
            {"decision", misconfig ? "error"
                         : fits    ? "on_ok"
                                   : "on_over"},
            {"next", misconfig ? nlohmann::json() : nlohmann::json(fits ? config.on_ok : config.on_over)},
            {"max_context_tokens", config.max_tokens},
            {"context_tokens", packed.context_tokens},
            {"divider_tokens", packed.divider_tokens},
            {"node_texts_tokens", packed.buffer_tokens},
            {"total_tokens", total},
            {"nodes", packed.trace}});
  if (misconfig) {
    throw StageError(
        fmt::format("PIPELINE_BUDGET_MISCONFIG: fetch_node_texts produced retrieval texts that cannot fit into "
                    "settings.max_context_tokens (node '{}': {} node texts need {} tokens after compaction, "
                    "max_context_tokens is {})",
                    node.id, in.node_texts.size(), packed.buffer_tokens, config.max_tokens),
        ErrorCategory::kTerminal);
  }
  if (!fits) return over_budget_outcome(node, config, in, packed);  // the contract: over budget changes nothing
  Outcome outcome = fitting_outcome(config, in, packed);
  hide_retrieval_keys_from_preambles(context, outcome);
  return outcome;
}

namespace {

/// `compact_code` is a valid rule list; the caret points inside the value.
void check_compact_code(const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out) {
  auto value = node.find("compact_code");
  if (!value) return;
  CompactRulesParse parsed = parse_compact_code_rules(value->text());
  if (!parsed.error) return;
  SourceLocation location = graph.source() ? locate_in_value(*graph.source(), value->location(), parsed.error->offset)
                                           : value->location();
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
    auto at = graph.data().find("max_context_tokens");
    out.push_back(make_diagnostic(
        "context_budget_settings", Severity::kError,
        fmt::format("node '{}' (manage_context_budget) needs graph attribute max_context_tokens (an integer > 0){}",
                    node.id,
                    graph.data().has("max_context_tokens") ? ", got '" + graph.data().get("max_context_tokens") + "'"
                                                           : std::string()),
        node.id, "add max_context_tokens=N to the graph [...] block", value_location(at, node.location)));
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
        {"on_over", AttributeType::kNodeId, "", "Node to continue at when they do not fit (required)."},
        {"compact_code", AttributeType::kJson, "",
         "Compaction rules: {\"rules\": [{\"language\": \"sql\" or \"dotnet\", \"policy\": \"always\", "
         "\"threshold\" or \"demand\", \"threshold\": (0, 1], \"inbox_key\": \"...\"}]}."},
        {"divide_new_content", AttributeType::kString, "",
         "Text block put between the existing context blocks and the appended node texts."},
    };
    d.checks = {{"compact_code_rules", check_compact_code, true}, {"context_budget_settings", check_budget_routes}};
    return d;
  }();
  return description;
}

}  // namespace attractor
