#pragma once
/// \file
/// The engine's inbox (docs/decisions.md): messages that one stage sends to a later stage.
///
/// A message is a JSON object `{"target_step_id": node id, "topic": non-empty string,
/// "payload": any JSON}`; the engine stamps `from_step_id` with the sending node. Messages come
/// from any handler's `Outcome::messages` (so also from an external agent's `status.json`) and from
/// `send_message` nodes. Pending messages live in the checkpoint's `inbox` array, in send order,
/// so they survive a resume. On entry to a node, the messages addressed to it are removed from the
/// inbox (in order) and stored in context key `inbox_last_consumed`.
///
/// Only the final attempt's outcome of a stage counts: its messages are stored whatever its status
/// (those of retried attempts are dropped); a malformed one fails the stage terminally. A
/// `loop_restart` starts a fresh run, so pending messages are dropped with the rest of the state.
/// Parallel branches have branch-local inboxes (see engine.cc / engine_stage.cc): messages a
/// branch does not consume itself join the main inbox when the parallel node completes.

#include <string>

#include <nlohmann/json.hpp>

#include "attractor/model/graph.h"
#include "attractor/model/context_keys.h"

namespace attractor {

/// Checks one message sent by `sender`: an object with a non-empty string `target_step_id` naming
/// a node of `graph`, a non-empty string `topic`, an optional `payload` (null when absent) and no
/// other members except `from_step_id` (replaced). Returns "" when valid, else what is wrong.
std::string inbox_message_error(const nlohmann::json& message, const Graph& graph);

/// Checks every message of `messages` (must be an array); "" when all are valid, else an error
/// naming the sending node and the message index.
std::string inbox_messages_error(const nlohmann::json& messages, const Graph& graph, const std::string& sender);

/// The stored form of a valid message: `target_step_id`, `topic`, `payload`, `from_step_id`.
nlohmann::json normalize_inbox_message(const nlohmann::json& message, const std::string& sender);

/// Appends the normalized `messages` (already validated) to `inbox`; returns how many.
std::size_t enqueue_inbox_messages(nlohmann::json& inbox, const nlohmann::json& messages, const std::string& sender);

/// Removes the messages addressed to `node_id` from `inbox` and returns them in send order.
nlohmann::json take_inbox_messages(nlohmann::json& inbox, const std::string& node_id);

}  // namespace attractor
