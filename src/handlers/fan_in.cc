#include "handlers/fan_in.h"

#include "attractor/check/transforms.h"
#include "handlers/codergen.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace {

int status_rank(const std::string& s) {
  if (s == "success") return 0;
  if (s == "partial_success") return 1;
  if (s == "retry") return 2;
  return 3;
}

double score_of(const nlohmann::json& r) {
  if (r.contains("context_changes") && r["context_changes"].contains("score")) {
    const auto& s = r["context_changes"]["score"];
    if (s.is_number()) return s.get<double>();
    if (s.is_string()) {
      try {
        return std::stod(s.get<std::string>());
      } catch (...) {
      }
    }
  }
  return 0.0;
}

}  // namespace

int heuristic_select(const nlohmann::json& results) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(results.size()); ++i) {
    if (best < 0) {
      best = i;
      continue;
    }
    const auto& a = results[i];
    const auto& b = results[best];
    int ra = status_rank(a.value("status", std::string()));
    int rb = status_rank(b.value("status", std::string()));
    if (ra != rb) {
      if (ra < rb) best = i;
      continue;
    }
    double sa = score_of(a);
    double sb = score_of(b);
    if (sa != sb) {
      if (sa > sb) best = i;
      continue;
    }
    if (a.value("id", std::string()) < b.value("id", std::string())) best = i;
  }
  return best;
}

Outcome FanInHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  auto results = context.get(kParallelResultsKey);
  if (!results || !results->is_array() || results->empty()) {
    return Outcome::fail("No parallel results to evaluate", ErrorCategory::kTerminal);
  }
  if (auto joined = context.get(kParallelOutcomeKey); joined && joined->is_string() && *joined == "fail") {
    auto reason = context.get(kParallelFailureReasonKey);
    return Outcome::fail("the parallel join failed: " +
                             (reason && reason->is_string() ? reason->get<std::string>() : std::string("no reason")),
                         ErrorCategory::kTerminal);
  }
  int best = -1;
  if (!node.prompt().empty() && backend_) {
    std::string prompt = expand_goal(node.prompt(), graph.data().goal()) + "\n\nCandidates:\n" + results->dump(2);
    write_attempt_file(env, "prompt.md", prompt);
    CodergenRequest request;
    request.node = &node;
    request.graph = &graph;
    request.context = &context;
    request.prompt = prompt;
    request.stage_dir = env.stage_dir;
    request.cancel = env.cancel;
    request.timeout_ms = env.timeout_ms;
    request.clock = env.clock;
    request.attempt = env.attempt;
    request.files = env.files();
    if (backend_->acts_outside_process(request)) env.flush_writes();
    request.attempt_directory = env.attempt_directory;
    request.keep_attempt_file = env.keep_attempt_file;
    CodergenResult r = backend_->run(request);
    write_attempt_file(env, "response.md", r.response);
    env.emit(kStageUsageEvent, stage_usage_fields(node, env, r, r.backend.empty() ? backend_->name() : r.backend));
    std::size_t earliest = std::string::npos;
    for (int i = 0; i < static_cast<int>(results->size()); ++i) {
      std::string id = (*results)[i].value("id", std::string());
      std::size_t pos = id.empty() ? std::string::npos : r.response.find(id);
      if (pos < earliest) {
        earliest = pos;
        best = i;
      }
    }
  }
  if (best < 0) best = heuristic_select(*results);
  const nlohmann::json& winner = (*results)[best];
  std::string status = winner.value("status", std::string("fail"));
  if (status_rank(status) >= 3) {
    return Outcome::fail("all parallel branches failed", ErrorCategory::kTerminal);
  }
  Outcome o = Outcome::success("Selected best candidate: " + winner.value("id", std::string()));
  o.context_updates[kFanInBestIdKey] = winner.value("id", std::string());
  o.context_updates[kFanInBestOutcomeKey] = status;
  o.context_updates[kFanInBestResponseKey] = winner.value("last_response", std::string());
  o.context_updates[kLastResponseKey] = winner.value("last_response", std::string());
  return o;
}

const HandlerDescription& fan_in_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "parallel.fan_in";
    d.shapes = {"tripleoctagon"};
    d.summary =
        "Joins parallel branches; with a prompt, an LLM picks the best branch. Fails when the parallel "
        "node's join failed (see join_policy).";
    HandlerTraits& t = d.traits;
    t.fans_in = true;
    t.llm = HandlerTraits::Llm::kWithPrompt;
    return d;
  }();
  return description;
}

}  // namespace attractor
