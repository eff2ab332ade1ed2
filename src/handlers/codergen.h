#pragma once
/// \file
/// `codergen` (§4.5): builds the prompt (`prompt`, else `label`, with `$goal` expanded), puts the
/// engine's fidelity preamble (`StageEnv::conversation`) in front of it, writes `prompt.md`, calls
/// the backend with the thread's history (under `full`) and appends the exchange to the thread,
/// writes `response.md`, and sets `last_stage`, `last_response` (first 200 characters) and
/// `last_model_response` (the full text). A backend error becomes a FAIL outcome of the error's
/// category.

#include <memory>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/llm/codergen_backend.h"

namespace attractor {

class CodergenHandler : public Handler {
 public:
  /// `sandbox` reaches the backend's requests (CodergenRequest::sandbox).
  explicit CodergenHandler(std::shared_ptr<CodergenBackend> backend, SandboxOptions sandbox = {})
      : backend_(std::move(backend)), sandbox_(sandbox) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  /// prompt.md and response.md are queued; the queue is flushed before a backend that acts
  /// outside the process is called.

 private:
  std::shared_ptr<CodergenBackend> backend_;
  SandboxOptions sandbox_;
};

/// Writes `name` into the stage folder (the latest attempt's copy) and into the attempt's own
/// folder `attempt-<K>/` (docs/run-directory.md, section 2.5), so a retry keeps what failed.
void write_attempt_file(const StageEnv& env, const std::string& name, const std::string& text);

/// The StageUsage fields of one attempt's `result` answered by `backend`: `name`, `attempt`,
/// `backend`, `model`, `input_tokens`, `output_tokens`, `requests` (docs/llm.md, "Token usage").
nlohmann::json stage_usage_fields(const NodeData& node, const StageEnv& env, const CodergenResult& result,
                                  const std::string& backend);

/// At most `max_chars` characters of UTF-8 `text`, never splitting a character.
std::string truncate_utf8(const std::string& text, std::size_t max_chars);

/// The description of the `codergen` handler type (registry, lint, engine and reference read it).
const HandlerDescription& codergen_description();

}  // namespace attractor
