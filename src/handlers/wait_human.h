#pragma once
/// \file
/// `wait.human` (§4.6): offers the outgoing edges as choices (label or target id, with accelerator
/// keys), asks the interviewer, and returns SUCCESS with the chosen target in
/// `suggested_next_ids`, its label as `preferred_label`, and `human.gate.selected` (key) and
/// `human.gate.label` in the context. The node `timeout` becomes the question timeout; on timeout
/// `human.default_choice` (key, label or target id) is used, else the outcome is RETRY. A skipped
/// question is FAIL. An interviewer that cannot ask (AnswerKind::kUnavailable: no terminal, end of
/// input, no answer left in an answers file) stops the run as interrupted before the gate
/// (StageEnv::interrupt_run), so that a resume asks again. Emits InterviewStarted /
/// InterviewCompleted (with the `option` taken and who `answered_by`) / InterviewTimeout.
///
/// `human.question_type` picks the question (§6.2):
///   multiple_choice (default)  the edges as options.
///   yes_no        yes follows the edge labelled yes/approve/accept/ok/confirm/continue, else the
///                 first edge; no follows the edge labelled no/reject/deny/decline/cancel/stop, else
///                 the second edge, else FAIL.
///   confirmation  yes as for yes_no; no follows an edge labelled like no, else the stage FAILs
///                 (terminal) so failure routing (`outcome=fail`, retry_target) decides.
///   freeform      free text stored in `human.gate.text`; when the text names a choice (key, label or
///                 target) that edge is suggested, otherwise normal edge selection applies (conditions
///                 can test `context.human.gate.text`).
/// On timeout `human.default_choice` is used as the answer for every type.
///
/// A gate never guesses: an answer that designates none of the options (multiple_choice: not a
/// key, label, number or target, nor a plain yes/no that an option's label means; yes_no and
/// confirmation: neither yes/y/true, no/n/false nor an option) FAILs the stage (terminal) with
/// "human gate `ID`: the answer "A" matches none of its options ("L1", "L2")".

#include <memory>
#include <optional>
#include <string_view>

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/services/interviewer.h"

namespace attractor {

/// Parses `human.question_type` ("" = multiple_choice); nullopt for an unknown value.
std::optional<QuestionType> parse_human_question_type(std::string_view text);

class WaitHumanHandler : public Handler {
 public:
  explicit WaitHumanHandler(std::shared_ptr<Interviewer> interviewer) : interviewer_(std::move(interviewer)) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;

 private:
  std::shared_ptr<Interviewer> interviewer_;
};

/// The description of the `wait.human` handler type (registry, lint, engine and reference read it).
const HandlerDescription& wait_human_description();

}  // namespace attractor
