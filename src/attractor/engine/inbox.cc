#include "attractor/engine/inbox.h"

#include <fmt/format.h>

namespace attractor {

std::string inbox_message_error(const nlohmann::json& message, const Graph& graph) {
  if (!message.is_object()) return "a message must be a JSON object, got " + message.dump();
  for (auto it = message.begin(); it != message.end(); ++it) {
    const std::string& key = it.key();
    if (key != "target_step_id" && key != "topic" && key != "payload" && key != "from_step_id") {
      return "unknown member '" + key + "' (allowed: target_step_id, topic, payload)";
    }
  }
  auto target = message.find("target_step_id");
  if (target == message.end() || !target->is_string() || target->get_ref<const std::string&>().empty()) {
    return "target_step_id must be a non-empty string naming a node";
  }
  if (!graph.find(target->get<std::string>())) {
    return "target_step_id '" + target->get<std::string>() + "' is not a node of this graph";
  }
  auto topic = message.find("topic");
  if (topic == message.end() || !topic->is_string() || topic->get_ref<const std::string&>().empty()) {
    return "topic must be a non-empty string";
  }
  return "";
}

std::string inbox_messages_error(const nlohmann::json& messages, const Graph& graph, const std::string& sender) {
  if (messages.is_null()) return "";
  if (!messages.is_array()) return fmt::format("stage {} sent inbox messages that are not a JSON array", sender);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    std::string error = inbox_message_error(messages[i], graph);
    if (!error.empty()) return fmt::format("stage {} sent a malformed inbox message #{}: {}", sender, i + 1, error);
  }
  return "";
}

nlohmann::json normalize_inbox_message(const nlohmann::json& message, const std::string& sender) {
  nlohmann::json m = nlohmann::json::object();
  m["target_step_id"] = message.at("target_step_id");
  m["topic"] = message.at("topic");
  m["payload"] = message.contains("payload") ? message.at("payload") : nlohmann::json();
  m["from_step_id"] = sender;
  return m;
}

std::size_t enqueue_inbox_messages(nlohmann::json& inbox, const nlohmann::json& messages, const std::string& sender) {
  if (!inbox.is_array()) inbox = nlohmann::json::array();
  if (!messages.is_array()) return 0;
  for (const nlohmann::json& m : messages) inbox.push_back(normalize_inbox_message(m, sender));
  return messages.size();
}

nlohmann::json take_inbox_messages(nlohmann::json& inbox, const std::string& node_id) {
  nlohmann::json taken = nlohmann::json::array();
  if (!inbox.is_array()) return taken;
  nlohmann::json kept = nlohmann::json::array();
  for (nlohmann::json& m : inbox) {
    if (m.is_object() && m.value("target_step_id", std::string()) == node_id) {
      taken.push_back(std::move(m));
    } else {
      kept.push_back(std::move(m));
    }
  }
  inbox = std::move(kept);
  return taken;
}

}  // namespace attractor
