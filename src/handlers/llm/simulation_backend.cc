#include "handlers/llm/simulation_backend.h"

#include <algorithm>
#include <stdexcept>

#include "attractor/base/comma_list.h"
#include "attractor/base/input_file.h"
#include "attractor/base/json_limits.h"
#include "attractor/run/run_directory.h"

namespace attractor {

namespace {

Outcome outcome_for(const std::string& status_text, const std::string& id) {
  StageStatus status;
  if (!parse_status(status_text, &status))
    throw StageError("simulate: unknown outcome '" + status_text + "'", ErrorCategory::kTerminal);
  Outcome o;
  o.status = status;
  if (status == StageStatus::kFail || status == StageStatus::kRetry) o.failure_reason = "simulated " + status_text;
  o.notes = "Stage completed: " + id;
  return o;
}

}  // namespace

CodergenResult SimulationBackend::run(const CodergenRequest& request) {
  const NodeData& node = *request.node;
  CodergenResult result;
  result.model = "simulation";
  result.response = "[Simulated] Response for stage: " + node.id;
  if (request.fidelity == "full" && !request.history.empty()) {
    result.response += " (thread " + request.thread_id + ": " + std::to_string(request.history.size()) +
                       " earlier messages; previous stage: " +
                       (request.previous_node.empty() ? std::string("none") : request.previous_node) + ")";
  }

  nlohmann::json entry;
  if (responses_.is_object() && responses_.contains(node.id)) {
    const nlohmann::json& e = responses_[node.id];
    if (e.is_array() && !e.empty()) {
      entry = e[std::min<std::size_t>(static_cast<std::size_t>(request.call_index), e.size() - 1)];
    } else if (!e.is_array()) {
      entry = e;
    }
  }
  if (entry.is_string()) {
    result.response = entry.get<std::string>();
  } else if (entry.is_object()) {
    if (entry.contains("error")) {
      std::string kind = entry.value("error", std::string("retryable"));
      throw StageError(entry.value("failure_reason", std::string("simulated error")),
                       kind == "terminal" ? ErrorCategory::kTerminal : ErrorCategory::kRetryable);
    }
    result.response = entry.value("response", result.response);
    if (entry.contains("outcome") || entry.contains("preferred_label") || entry.contains("context_updates") ||
        entry.contains("suggested_next_ids")) {
      Outcome o = outcome_for(entry.value("outcome", std::string("success")), node.id);
      o.preferred_label = entry.value("preferred_label", std::string());
      if (entry.contains("suggested_next_ids"))
        o.suggested_next_ids = entry["suggested_next_ids"].get<std::vector<std::string>>();
      if (entry.contains("context_updates") && entry["context_updates"].is_object()) {
        o.context_updates = entry["context_updates"];
      }
      o.notes = entry.value("notes", o.notes);
      if (entry.contains("failure_reason")) o.failure_reason = entry.value("failure_reason", std::string());
      result.outcome = o;
    }
  } else {
    if (auto v = node.find("simulate.response")) result.response = v->text();
    const std::optional<ValueView> script = node.find("simulate.outcome");
    const std::string_view outcomes = script ? script->text() : std::string_view();
    std::string label = node.get("simulate.preferred_label");
    if (!outcomes.empty() || !label.empty()) {
      const std::string status = scripted_outcome(node.id, outcomes, static_cast<std::size_t>(request.call_index));
      Outcome o = outcome_for(status, node.id);
      o.preferred_label = label;
      result.outcome = o;
    }
  }
  result.usage.input_tokens = static_cast<std::int64_t>(request.prompt.size() / 4);
  result.usage.output_tokens = static_cast<std::int64_t>(result.response.size() / 4);
  return result;
}

std::string SimulationBackend::scripted_outcome(const std::string& node_id, std::string_view script, std::size_t call) {
  std::lock_guard lock(scripts_mutex_);
  auto it = scripts_.find(node_id);
  if (it == scripts_.end() || it->second.text != script) {
    Script parsed{std::string(script), split_comma_list(script, " \t")};
    if (parsed.items.empty()) parsed.items.push_back("success");
    it = scripts_.insert_or_assign(node_id, std::move(parsed)).first;
  }
  const std::vector<std::string>& items = it->second.items;
  return items[std::min(call, items.size() - 1)];
}

nlohmann::json load_responses_file(const std::string& path) {
  nlohmann::json j = parse_json_limited(read_input_file_or_throw(path, kJsonFileRules), path, kMaxValueDepth);
  if (!j.is_object()) throw std::runtime_error(path + ": responses must be a JSON object keyed by node id");
  return j;
}

ProviderRecord simulate_provider() {
  ProviderRecord r;
  r.name = "simulate";
  r.summary = "Deterministic answers computed in the process, scripted by --responses or simulate.* attributes.";
  r.aliases = {{"simulation", "simulate"}};
  r.fixed_model = "simulation";
  r.capabilities.in_process = true;
  r.capabilities.fallback = true;
  r.make = [](const ProviderUse& use) -> std::shared_ptr<CodergenBackend> {
    return std::make_shared<SimulationBackend>(use.config.responses);
  };
  return r;
}

}  // namespace attractor
