#include "handlers/wait_human.h"

#include <algorithm>
#include <cctype>

#include "attractor/engine/edge_selection.h"

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

/// The label without its accelerator decoration, lowercased ("[Y] Yes" -> "yes").
std::string plain_label(const std::string& label) {
  std::string text = normalize_label(label);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

/// The choice whose label means `words` (e.g. yes/approve), else the choice at `fallback_index`.
const Choice* choice_meaning(const std::vector<Choice>& choices, std::initializer_list<const char*> words,
                             std::size_t fallback_index) {
  for (const auto& c : choices) {
    std::string label = plain_label(c.label);
    for (const char* w : words) {
      if (label == w) return &c;
    }
  }
  return fallback_index < choices.size() ? &choices[fallback_index] : nullptr;
}

const Choice* yes_choice(const std::vector<Choice>& choices) {
  return choice_meaning(choices, {"yes", "y", "approve", "approved", "accept", "ok", "confirm", "continue"}, 0);
}

const Choice* no_choice(const std::vector<Choice>& choices) {
  return choice_meaning(choices, {"no", "n", "reject", "rejected", "deny", "decline", "cancel", "stop"}, 1);
}

}  // namespace

std::optional<QuestionType> parse_human_question_type(std::string_view text) {
  if (text.empty() || text == "multiple_choice") return QuestionType::kMultipleChoice;
  if (text == "yes_no") return QuestionType::kYesNo;
  if (text == "confirmation") return QuestionType::kConfirmation;
  if (text == "freeform") return QuestionType::kFreeform;
  return std::nullopt;
}

Outcome WaitHumanHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::optional<QuestionType> type = parse_human_question_type(node.get("human.question_type"));
  if (!type) {
    return Outcome::fail("node " + node.id + ": human.question_type '" + node.get("human.question_type") +
                             "' is not one of multiple_choice, yes_no, confirmation, freeform",
                         ErrorCategory::kTerminal);
  }
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
  q.type = *type;
  if (q.type == QuestionType::kMultipleChoice) {
    for (const auto& c : choices) q.options.push_back({c.key, c.label});
  }
  q.stage = node.id;
  if (env.timeout_ms) q.timeout_seconds = static_cast<double>(*env.timeout_ms) / 1000.0;

  std::int64_t started = env.clock ? env.clock->now_ms() : 0;
  env.emit("InterviewStarted", {{"question", q.text},
                                {"stage", node.id},
                                {"question_type", question_type_name(q.type)},
                                {"options", q.to_json()["options"]}});
  Answer answer = interviewer_->ask(q);
  std::int64_t duration = env.clock ? env.clock->now_ms() - started : 0;

  if (answer.kind == AnswerKind::kTimeout) {
    env.emit("InterviewTimeout", {{"question", q.text}, {"stage", node.id}, {"duration_ms", duration}});
    std::string fallback = node.get("human.default_choice");
    if (fallback.empty()) return Outcome::retry("human gate timeout, no default");
    if (q.type == QuestionType::kMultipleChoice) {
      if (!find_choice(fallback, choices)) {
        return Outcome::fail("human.default_choice '" + fallback + "' matches no choice", ErrorCategory::kTerminal);
      }
      answer = Answer::of(fallback);
    } else if (q.type == QuestionType::kFreeform) {
      answer = Answer::of(fallback);
      answer.text = fallback;
    } else {
      std::string l = plain_label(fallback);
      if (l == "yes" || l == "y") answer = Answer::yes();
      else if (l == "no" || l == "n") answer = Answer::no();
      else if (const Choice* c = find_choice(fallback, choices)) answer = Answer::of(c->key);
      else return Outcome::fail("human.default_choice '" + fallback + "' is neither yes, no nor a choice",
                                ErrorCategory::kTerminal);
    }
  } else {
    env.emit("InterviewCompleted",
             {{"question", q.text}, {"stage", node.id}, {"answer", answer.to_json()}, {"duration_ms", duration}});
    if (answer.kind == AnswerKind::kSkipped) return Outcome::fail("human skipped interaction", ErrorCategory::kTerminal);
  }

  const Choice* selected = nullptr;
  switch (q.type) {
    case QuestionType::kMultipleChoice:
      if (answer.selected_option) selected = find_choice(answer.selected_option->key, choices);
      if (!selected) selected = find_choice(answer.value, choices);
      if (!selected && !answer.text.empty()) selected = find_choice(answer.text, choices);
      if (!selected && answer.kind == AnswerKind::kNo) selected = no_choice(choices);
      if (!selected) selected = &choices.front();
      break;
    case QuestionType::kYesNo:
    case QuestionType::kConfirmation: {
      bool yes = answer.kind == AnswerKind::kYes;
      if (answer.kind == AnswerKind::kValue) {
        std::string l = plain_label(answer.value);
        if (l == "yes" || l == "y" || l == "true") yes = true;
        else if (const Choice* c = find_choice(answer.value, choices)) selected = c;
      }
      if (selected) break;
      if (yes) {
        selected = yes_choice(choices);
      } else if (q.type == QuestionType::kConfirmation) {
        const Choice* no = choice_meaning(choices, {"no", "n", "reject", "rejected", "deny", "decline", "cancel", "stop"},
                                          choices.size());
        if (!no) {
          Outcome declined = Outcome::fail("human did not confirm: " + q.text, ErrorCategory::kTerminal);
          declined.context_updates["human.gate.selected"] = "N";
          declined.context_updates["human.gate.label"] = "no";
          return declined;
        }
        selected = no;
      } else {
        selected = no_choice(choices);
        if (!selected) {
          return Outcome::fail("human answered no and gate " + node.id + " has no edge for it",
                               ErrorCategory::kTerminal);
        }
      }
      break;
    }
    case QuestionType::kFreeform:
      selected = find_choice(answer.text.empty() ? answer.value : answer.text, choices);
      break;
  }

  Outcome o;
  if (selected) {
    o = Outcome::success("human selected " + selected->label);
    o.suggested_next_ids = {selected->to};
    o.preferred_label = selected->label;
    o.context_updates["human.gate.selected"] = selected->key;
    o.context_updates["human.gate.label"] = selected->label;
  } else {
    o = Outcome::success("human answered");
  }
  std::string text = answer.text;
  if (text.empty() && q.type == QuestionType::kFreeform) text = answer.value;
  if (!text.empty()) o.context_updates["human.gate.text"] = text;
  return o;
}

const HandlerDescription& wait_human_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "wait.human";
    d.shapes = {"hexagon"};
    d.summary = "A human gate: asks a question whose options are the outgoing edges and follows the answer.";
    d.attributes = {
        {"human.question_type", AttributeType::kString, "multiple_choice",
         "How the question is asked: multiple_choice (the outgoing edges as options), yes_no, confirmation or "
         "freeform."},
        {"human.default_choice", AttributeType::kString, "",
         "Answer taken when the question times out; without it a timeout asks for a retry."},
    };
    HandlerTraits& t = d.traits;
    t.handles_timeout = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
