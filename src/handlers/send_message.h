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

#include "attractor/handler.h"

namespace attractor {

class SendMessageHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// Writes nothing in the run directory.
  bool queues_writes() const override { return true; }
};

}  // namespace attractor
