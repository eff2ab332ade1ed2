#pragma once
/// \file
/// `wait.human` (§4.6): offers the outgoing edges as choices (label or target id, with accelerator
/// keys), asks the interviewer, and returns SUCCESS with the chosen target in
/// `suggested_next_ids`, its label as `preferred_label`, and `human.gate.selected` (key) and
/// `human.gate.label` in the context. The node `timeout` becomes the question timeout; on timeout
/// `human.default_choice` (key, label or target id) is used, else the outcome is RETRY. A skipped
/// question is FAIL. Emits InterviewStarted / InterviewCompleted / InterviewTimeout.

#include <memory>

#include "attractor/handler.h"
#include "attractor/interviewer.h"

namespace attractor {

class WaitHumanHandler : public Handler {
 public:
  explicit WaitHumanHandler(std::shared_ptr<Interviewer> interviewer) : interviewer_(std::move(interviewer)) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;
  bool handles_timeout() const override { return true; }

 private:
  std::shared_ptr<Interviewer> interviewer_;
};

}  // namespace attractor
