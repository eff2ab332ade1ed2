#pragma once
/// \file
/// The deterministic simulation backend (`--simulate`, and the default when no LLM backend is
/// configured). Its response names the stage: "[Simulated] Response for stage: <id>". It is
/// session-aware: a `full`-fidelity stage continuing a thread gets
/// "[Simulated] Response for stage: <id> (thread <thread>: <n> earlier messages; previous stage:
/// <previous node>)", so tests can see that the history reached the backend.
///
/// Scripting, per node, first match wins:
/// 1. `--responses FILE.json`: an object mapping node ids to an entry or an array of entries (the
///    n-th call of the node uses entry n, the last entry repeats). An entry is a string (the
///    response) or an object with `response`, `outcome` (success, fail, retry, partial_success),
///    `preferred_label`, `suggested_next_ids`, `context_updates`, `notes`, `failure_reason`,
///    `error` ("terminal" makes a failure terminal).
/// 2. Node attributes `simulate.response`, `simulate.outcome` and `simulate.preferred_label`;
///    `simulate.outcome` may list one status per call, comma-separated ("fail,fail,success").
/// Calls are counted per node by the engine (StageEnv::prior_attempts, the checkpoint's
/// `node_attempts`), so a resumed run continues the same script.

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/provider.h"

namespace attractor {

class SimulationBackend : public CodergenBackend {
 public:
  SimulationBackend() = default;
  explicit SimulationBackend(nlohmann::json responses) : responses_(std::move(responses)) {}
  std::string name() const override { return "simulation"; }
  CodergenResult run(const CodergenRequest& request) override;
  /// Scripted and generated answers are computed in memory.
  bool acts_outside_process(const CodergenRequest&) const override { return false; }
  /// Every node: provider `simulate`, model `simulation`.
  BackendChoice plan(const NodeData&, const Graph&) const override { return {"simulate", "simulation", ""}; }

 private:
  /// A node's `simulate.outcome` text and its non-empty items ("success" when it has none).
  struct Script {
    std::string text;
    std::vector<std::string> items;
  };
  /// Item `call` of `script` (the last item past its end), split once per node and text: a review
  /// loop's script lists one status per visit and is read on every visit.
  std::string scripted_outcome(const std::string& node_id, std::string_view script, std::size_t call);

  nlohmann::json responses_ = nlohmann::json::object();
  std::mutex scripts_mutex_;
  std::map<std::string, Script, std::less<>> scripts_;
};

/// The `simulate` provider record (provider_table.h), alias `simulation`.
ProviderRecord simulate_provider();

/// Reads a `--responses` file; throws std::runtime_error when unreadable or not an object.
nlohmann::json load_responses_file(const std::string& path);

}  // namespace attractor
