#pragma once
/// \file
/// `send_message`: puts one message into the engine's inbox (see attractor/inbox.h), addressed to
/// a later node. Attributes:
/// - `target_step_id` (required): the node that receives it on its next entry;
/// - `topic` (required, non-empty);
/// - `payload` (optional): parsed as JSON when it is valid JSON, otherwise kept as a string;
/// - `payload_from` (optional, exclusive with `payload`): a context key whose value is the payload
///   (the key must exist);
/// - `next` (optional): the node to route to (through `suggested_next_ids`).
/// Without `payload`/`payload_from` the payload is null. The message reaches the inbox after the
/// node completes (the engine validates and stores it).

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"

namespace attractor {

class SendMessageHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
};

/// The description of the `send_message` handler type (registry, lint, engine and reference read it).
const HandlerDescription& send_message_description();

}  // namespace attractor
