#include "handlers/set_variables.h"

#include <stdexcept>

#include <fmt/format.h>

#include "handlers/companion_support.h"

namespace attractor {

namespace {

constexpr const char* kSetVariablesType = "set_variables";

bool is_blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

nlohmann::json to_context_blocks(const nlohmann::json& value) {
  nlohmann::json blocks = nlohmann::json::array();
  if (value.is_null()) return blocks;
  if (value.is_string()) {
    if (!is_blank(value.get_ref<const std::string&>())) blocks.push_back(value);
    return blocks;
  }
  if (value.is_array()) {
    for (const nlohmann::json& item : value) {
      if (!item.is_string()) throw std::invalid_argument("list items must be strings, got " + item.dump());
    }
    return value;
  }
  throw std::invalid_argument("expected a string, a list of strings or null, got " + value.dump());
}

Outcome SetVariablesHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv&) {
  std::optional<nlohmann::json> rules = json_attribute(node, kSetVariablesType, "rules");
  if (!rules)
    throw_step_error(node, kSetVariablesType, "rules", "required (a JSON list of {set, from | value, transform})");
  if (!rules->is_array() || rules->empty())
    throw_step_error(node, kSetVariablesType, "rules", "must be a non-empty JSON list");
  std::string next = route_attribute(node, graph, kSetVariablesType, "next", false);

  nlohmann::json updates = nlohmann::json::object();
  for (std::size_t i = 0; i < rules->size(); ++i) {
    const nlohmann::json& rule = (*rules)[i];
    std::string where = fmt::format("rules[{}]", i);
    if (!rule.is_object()) throw_step_error(node, kSetVariablesType, where, "must be an object, got " + rule.dump());
    for (auto it = rule.begin(); it != rule.end(); ++it) {
      if (it.key() != "set" && it.key() != "from" && it.key() != "value" && it.key() != "transform") {
        throw_step_error(node, kSetVariablesType, where + "." + it.key(),
                         "unknown field (allowed: set, from, value, transform)");
      }
    }
    auto set = rule.find("set");
    if (set == rule.end() || !set->is_string() || set->get_ref<const std::string&>().empty()) {
      throw_step_error(node, kSetVariablesType, where + ".set", "required (a non-empty context key)");
    }
    bool has_from = rule.contains("from");
    bool has_value = rule.contains("value");
    if (has_from == has_value)
      throw_step_error(node, kSetVariablesType, where, "needs exactly one of 'from' or 'value'");
    nlohmann::json value;
    if (has_from) {
      const nlohmann::json& from = rule["from"];
      if (!from.is_string() || from.get_ref<const std::string&>().empty()) {
        throw_step_error(node, kSetVariablesType, where + ".from", "must be a non-empty context key");
      }
      const std::string& key = from.get_ref<const std::string&>();
      if (auto it = updates.find(key); it != updates.end()) {
        value = *it;
      } else if (auto v = context.get(key)) {
        value = std::move(*v);
      } else {
        throw_step_error(node, kSetVariablesType, where + ".from", "context key '" + key + "' is not set");
      }
    } else {
      value = rule["value"];
    }
    if (auto t = rule.find("transform"); t != rule.end()) {
      if (!t->is_string() || t->get<std::string>() != "to_context_blocks") {
        throw_step_error(node, kSetVariablesType, where + ".transform",
                         "unknown transform " + t->dump() + " (allowed: to_context_blocks)");
      }
      try {
        value = to_context_blocks(value);
      } catch (const std::invalid_argument& e) {
        throw_step_error(node, kSetVariablesType, where + ".transform", std::string("to_context_blocks: ") + e.what());
      }
    }
    updates[set->get<std::string>()] = std::move(value);
  }
  Outcome o = routed_success(fmt::format("set {} context key(s)", updates.size()), next);
  o.context_updates = std::move(updates);
  return o;
}

const HandlerDescription& set_variables_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "set_variables";
    d.shapes = {};
    d.summary = "Sets context keys, from other keys or literal values, as its rules attribute lists.";
    d.attributes = {
        {"rules", AttributeType::kJson, "",
         "A JSON list of {\"set\": KEY, \"from\": KEY or \"value\": JSON, \"transform\": "
         "\"to_context_blocks\"}, applied in order (required)."},
        {"next", AttributeType::kNodeId, "",
         "Node to continue at (a suggested next id; an outgoing edge to it must exist)."},
    };
    HandlerTraits& t = d.traits;
    t.queues_writes = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
