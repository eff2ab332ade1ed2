#pragma once
/// \file
/// `parallel.fan_in` (§4.9): picks the best branch from `parallel.results`. With a `prompt` and a
/// backend, the backend ranks the candidates (the first branch id named in its response wins;
/// `prompt.md`/`response.md` are written); otherwise, or when the response names none, the
/// heuristic ranks by status (success < partial_success < retry < fail), then by a numeric
/// `score` in the branch's context changes (higher first), then by id. Sets
/// `parallel.fan_in.best_id`, `parallel.fan_in.best_outcome`, `parallel.fan_in.best_response`,
/// and `last_response` to the winner's. FAIL when there are no results or every branch failed.

#include <memory>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/llm/codergen_backend.h"

namespace attractor {

class FanInHandler : public Handler {
 public:
  explicit FanInHandler(std::shared_ptr<CodergenBackend> backend = nullptr) : backend_(std::move(backend)) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;

 private:
  std::shared_ptr<CodergenBackend> backend_;
};

/// Index of the heuristic winner among `results` (a `parallel.results` array); -1 when empty.
int heuristic_select(const nlohmann::json& results);

/// The description of the `parallel.fan_in` handler type (registry, lint, engine and reference read it).
const HandlerDescription& fan_in_description();

}  // namespace attractor
