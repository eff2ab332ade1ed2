#include "handlers/send_message.h"

#include "attractor/base/json_limits.h"
#include "handlers/companion_support.h"

namespace attractor {

namespace {
constexpr const char* kSendMessageType = "send_message";
}

Outcome SendMessageHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv&) {
  std::string target = route_attribute(node, graph, kSendMessageType, "target_step_id", true);
  std::string topic = node.get("topic");
  if (topic.empty()) throw_step_error(node, kSendMessageType, "topic", "required (a non-empty string)");
  if (node.has("payload") && node.has("payload_from")) {
    throw_step_error(node, kSendMessageType, "payload_from", "not allowed together with payload (choose one)");
  }
  nlohmann::json payload;
  if (auto v = node.find("payload")) {
    payload = parse_json_or_discarded(v->text());
    if (payload.is_discarded()) payload = std::string(v->text());
  } else if (node.has("payload_from")) {
    std::string key = node.get("payload_from");
    auto value = key.empty() ? std::nullopt : context.get(key);
    if (!value) throw_step_error(node, kSendMessageType, "payload_from", "context key '" + key + "' is not set");
    payload = std::move(*value);
  }
  Outcome o = routed_success("message '" + topic + "' sent to " + target,
                             route_attribute(node, graph, kSendMessageType, "next", false));
  o.messages.push_back({{"target_step_id", target}, {"topic", topic}, {"payload", std::move(payload)}});
  return o;
}

const HandlerDescription& send_message_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "send_message";
    d.shapes = {};
    d.summary = "Posts a message to another stage through the run inbox.";
    d.attributes = {
        {"target_step_id", AttributeType::kNodeId, "", "Stage whose inbox receives the message (required)."},
        {"topic", AttributeType::kString, "", "Topic of the message (required)."},
        {"payload", AttributeType::kString, "",
         "Payload of the message: the parsed JSON when the text is JSON, else the text."},
        {"payload_from", AttributeType::kString, "",
         "Context key whose value is the payload (exclusive with payload)."},
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
