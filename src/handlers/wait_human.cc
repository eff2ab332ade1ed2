#include "handlers/wait_human.h"

#include "attractor/edge_selection.h"

namespace attractor {

namespace {

struct Choice {
  std::string key;
  std::string label;
  std::string to;
};

const Choice* find_choice(const std::string& value, const std::vector<Choice>& choices) {
  if (value.empty()) return nullptr;
  std::vector<Option> options;
  for (const auto& c : choices) options.push_back({c.key, c.label});
  if (auto o = match_option(value, options)) {
    for (const auto& c : choices) {
      if (c.key == o->key && c.label == o->label) return &c;
    }
  }
  for (const auto& c : choices) {
    if (c.to == value) return &c;
  }
  return nullptr;
}

}  // namespace

Outcome WaitHumanHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::vector<Choice> choices;
  for (Edge e : graph.out_edges(*graph.find(node.id))) {
    const EdgeData& edge = graph.edge(e);
    std::string label = edge.label().empty() ? edge.to : edge.label();
    choices.push_back({accelerator_key(label), label, edge.to});
  }
  if (choices.empty()) return Outcome::fail("No outgoing edges for human gate", ErrorCategory::kTerminal);
  if (!interviewer_) return Outcome::fail("no interviewer configured", ErrorCategory::kTerminal);

  Question q;
  q.text = node.label().empty() ? "Select an option:" : node.label();
  q.type = QuestionType::kMultipleChoice;
  for (const auto& c : choices) q.options.push_back({c.key, c.label});
  q.stage = node.id;
  if (env.timeout_ms) q.timeout_seconds = static_cast<double>(*env.timeout_ms) / 1000.0;

  std::int64_t started = env.clock ? env.clock->now_ms() : 0;
  env.emit("InterviewStarted", {{"question", q.text}, {"stage", node.id}, {"options", q.to_json()["options"]}});
  Answer answer = interviewer_->ask(q);
  std::int64_t duration = env.clock ? env.clock->now_ms() - started : 0;

  const Choice* selected = nullptr;
  if (answer.kind == AnswerKind::kTimeout) {
    env.emit("InterviewTimeout", {{"question", q.text}, {"stage", node.id}, {"duration_ms", duration}});
    std::string fallback = node.get("human.default_choice");
    if (fallback.empty()) return Outcome::retry("human gate timeout, no default");
    selected = find_choice(fallback, choices);
    if (!selected) return Outcome::fail("human.default_choice '" + fallback + "' matches no choice",
                                        ErrorCategory::kTerminal);
  } else {
    env.emit("InterviewCompleted",
             {{"question", q.text}, {"stage", node.id}, {"answer", answer.to_json()}, {"duration_ms", duration}});
    if (answer.kind == AnswerKind::kSkipped) return Outcome::fail("human skipped interaction", ErrorCategory::kTerminal);
    if (answer.selected_option) selected = find_choice(answer.selected_option->key, choices);
    if (!selected) selected = find_choice(answer.value, choices);
    if (!selected && !answer.text.empty()) selected = find_choice(answer.text, choices);
    if (!selected && answer.kind == AnswerKind::kNo && choices.size() > 1) selected = &choices[1];
    if (!selected) selected = &choices.front();
  }
  Outcome o = Outcome::success("human selected " + selected->label);
  o.suggested_next_ids = {selected->to};
  o.preferred_label = selected->label;
  o.context_updates["human.gate.selected"] = selected->key;
  o.context_updates["human.gate.label"] = selected->label;
  if (!answer.text.empty()) o.context_updates["human.gate.text"] = answer.text;
  return o;
}

}  // namespace attractor
