#include "handlers/wait_human.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "attractor/engine/edge_selection.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"

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

/// The choice whose label means `words` (e.g. yes/approve), else the choice at `fallback_index`
/// (none when it is past the end).
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

constexpr std::initializer_list<const char*> kYesWords = {"yes",    "y",  "approve", "approved",
                                                          "accept", "ok", "confirm", "continue"};
constexpr std::initializer_list<const char*> kNoWords = {"no",   "n",       "reject", "rejected",
                                                         "deny", "decline", "cancel", "stop"};

/// For yes/no questions the first edge stands for yes and the second for no unless labels say otherwise.
const Choice* yes_choice(const std::vector<Choice>& choices) { return choice_meaning(choices, kYesWords, 0); }
const Choice* no_choice(const std::vector<Choice>& choices) { return choice_meaning(choices, kNoWords, 1); }

/// The failure of an answer that designates none of the gate's options: a gate never guesses.
Outcome unmatched_answer(const NodeData& node, const Answer& answer, const std::vector<Choice>& choices) {
  std::string given = answer.text.empty() ? answer.value : answer.text;
  std::string options;
  for (const Choice& c : choices) options += (options.empty() ? "" : ", ") + ("\"" + c.label + "\"");
  return Outcome::fail(
      "human gate `" + node.id + "`: the answer \"" + given + "\" matches none of its options (" + options + ")",
      ErrorCategory::kTerminal);
}

/// What a step of the gate produced: a value to go on with, or the outcome that ends the stage.
template <typename T>
struct OrEnd {
  T value{};
  std::optional<Outcome> end;
};

std::vector<Choice> edge_choices(const NodeData& node, const Graph& graph) {
  std::vector<Choice> choices;
  for (Edge e : graph.out_edges(*graph.find(node.id))) {
    const EdgeData& edge = graph.edge(e);
    std::string label = edge.label().empty() ? graph.to_id(e) : edge.label();
    choices.push_back({accelerator_key(label), label, graph.to_id(e)});
  }
  return choices;
}

Question make_question(const NodeData& node, QuestionType type, const std::vector<Choice>& choices,
                       const StageEnv& env) {
  Question q;
  q.text = node.label().empty() ? "Select an option:" : node.label();
  q.type = type;
  if (q.type == QuestionType::kMultipleChoice) {
    for (const auto& c : choices) q.options.push_back({c.key, c.label});
  }
  q.stage = node.id;
  q.metadata["default_choice"] = node.get("human.default_choice");
  if (env.timeout_ms) q.timeout_seconds = static_cast<double>(*env.timeout_ms) / 1000.0;
  return q;
}

/// The answer `human.default_choice` stands for after a timeout.
OrEnd<Answer> default_answer(const NodeData& node, const Question& q, const std::vector<Choice>& choices) {
  std::string fallback = node.get("human.default_choice");
  if (fallback.empty()) return {{}, Outcome::retry("human gate timeout, no default")};
  if (q.type == QuestionType::kMultipleChoice) {
    if (!find_choice(fallback, choices)) {
      return {{}, Outcome::fail("human.default_choice '" + fallback + "' matches no choice", ErrorCategory::kTerminal)};
    }
    return {Answer::of(fallback), std::nullopt};
  }
  if (q.type == QuestionType::kFreeform) {
    Answer answer = Answer::of(fallback);
    answer.text = fallback;
    return {answer, std::nullopt};
  }
  std::string l = plain_label(fallback);
  if (l == "yes" || l == "y") return {Answer::yes(), std::nullopt};
  if (l == "no" || l == "n") return {Answer::no(), std::nullopt};
  if (const Choice* c = find_choice(fallback, choices)) return {Answer::of(c->key), std::nullopt};
  return {{},
          Outcome::fail("human.default_choice '" + fallback + "' is neither yes, no nor a choice",
                        ErrorCategory::kTerminal)};
}

/// The end of a gate nobody could ask (`why`): the run stops as interrupted before the gate, so
/// that a resume asks again; outside the engine the stage fails with the same words.
Outcome cannot_ask(const NodeData& node, const std::string& why, const StageEnv& env) {
  std::string reason = "human gate `" + node.id + "` could not ask: " + why;
  if (env.interrupt_run) env.interrupt_run(reason);
  return Outcome::fail(reason, ErrorCategory::kTerminal);
}

/// Asks `q`, emitting InterviewStarted (and InterviewTimeout); a timeout falls back to the node's
/// default choice, an interviewer that cannot ask interrupts the run, a skip fails the stage.
OrEnd<Answer> ask(Interviewer& interviewer, const NodeData& node, const Question& q, const std::vector<Choice>& choices,
                  const StageEnv& env, std::int64_t started) {
  env.emit(kInterviewStartedEvent, {{"question", q.text},
                                    {"stage", node.id},
                                    {"question_type", question_type_name(q.type)},
                                    {"options", q.to_json()["options"]}});
  Answer answer = interviewer.ask(q);
  std::int64_t duration = env.clock ? env.clock->now_ms() - started : 0;
  if (answer.kind == AnswerKind::kTimeout) {
    env.emit(kInterviewTimeoutEvent, {{"question", q.text}, {"stage", node.id}, {"duration_ms", duration}});
    OrEnd<Answer> fallback = default_answer(node, q, choices);
    fallback.value.source = "timeout-default";
    return fallback;
  }
  if (answer.kind == AnswerKind::kUnavailable) return {{}, cannot_ask(node, answer.text, env)};
  return {answer, std::nullopt};
}

/// The option a multiple-choice answer designates: its key, label or number, or for a plain
/// yes/no answer the option whose label means yes/no; nullptr when it designates none.
const Choice* multiple_choice_selection(const Answer& answer, const std::vector<Choice>& choices) {
  const Choice* selected = nullptr;
  if (answer.selected_option) selected = find_choice(answer.selected_option->key, choices);
  if (!selected) selected = find_choice(answer.value, choices);
  if (!selected && !answer.text.empty()) selected = find_choice(answer.text, choices);
  if (!selected && answer.kind == AnswerKind::kYes) selected = choice_meaning(choices, kYesWords, choices.size());
  if (!selected && answer.kind == AnswerKind::kNo) selected = choice_meaning(choices, kNoWords, choices.size());
  return selected;
}

/// The edge a yes/no or confirmation answer selects; an unconfirmed confirmation without a "no"
/// edge, or a "no" without an edge for it, ends the stage.
OrEnd<const Choice*> yes_no_selection(const NodeData& node, const Question& q, const Answer& answer,
                                      const std::vector<Choice>& choices) {
  bool yes = answer.kind == AnswerKind::kYes;
  if (answer.kind == AnswerKind::kValue) {
    std::string l = plain_label(answer.value);
    if (l == "yes" || l == "y" || l == "true") {
      yes = true;
    } else if (const Choice* c = find_choice(answer.value, choices)) {
      return {c, std::nullopt};
    } else if (l != "no" && l != "n" && l != "false") {
      return {nullptr, unmatched_answer(node, answer, choices)};
    }
  }
  if (yes) return {yes_choice(choices), std::nullopt};
  if (q.type == QuestionType::kConfirmation) {
    const Choice* no = choice_meaning(choices, {"no", "n", "reject", "rejected", "deny", "decline", "cancel", "stop"},
                                      choices.size());
    if (no) return {no, std::nullopt};
    Outcome declined = Outcome::fail("human did not confirm: " + q.text, ErrorCategory::kTerminal);
    declined.context_updates[kHumanGateSelectedKey] = "N";
    declined.context_updates[kHumanGateLabelKey] = "no";
    return {nullptr, declined};
  }
  if (const Choice* no = no_choice(choices)) return {no, std::nullopt};
  return {nullptr,
          Outcome::fail("human answered no and gate " + node.id + " has no edge for it", ErrorCategory::kTerminal)};
}

OrEnd<const Choice*> select_choice(const NodeData& node, const Question& q, const Answer& answer,
                                   const std::vector<Choice>& choices) {
  switch (q.type) {
    case QuestionType::kMultipleChoice:
      if (const Choice* c = multiple_choice_selection(answer, choices)) return {c, std::nullopt};
      return {nullptr, unmatched_answer(node, answer, choices)};
    case QuestionType::kYesNo:
    case QuestionType::kConfirmation: return yes_no_selection(node, q, answer, choices);
    case QuestionType::kFreeform:
      return {find_choice(answer.text.empty() ? answer.value : answer.text, choices), std::nullopt};
  }
  return {nullptr, std::nullopt};
}

Outcome answered_outcome(const Question& q, const Answer& answer, const Choice* selected) {
  Outcome o;
  if (selected) {
    o = Outcome::success("human selected " + selected->label);
    o.suggested_next_ids = {selected->to};
    o.preferred_label = selected->label;
    o.context_updates[kHumanGateSelectedKey] = selected->key;
    o.context_updates[kHumanGateLabelKey] = selected->label;
  } else {
    o = Outcome::success("human answered");
  }
  std::string text = answer.text;
  if (text.empty() && q.type == QuestionType::kFreeform) text = answer.value;
  if (!text.empty()) o.context_updates[kHumanGateTextKey] = text;
  return o;
}

/// The question type as `human.question_type` spells it ("multiple_choice").
std::string type_attribute(QuestionType type) {
  std::string name = question_type_name(type);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

/// `prompt.md` of a gate: the question, its type, options, default and timeout.
std::string gate_prompt(const NodeData& node, const Question& q) {
  std::string text = "# Human gate `" + node.id + "`\n\n" + q.text + "\n\nType: " + type_attribute(q.type) + "\n";
  if (!q.options.empty()) {
    text += "Options:\n";
    for (const Option& o : q.options) text += "- [" + o.key + "] " + label_without_accelerator(o.label) + "\n";
  }
  if (std::string fallback = node.get("human.default_choice"); !fallback.empty()) {
    text += "Default on timeout: " + fallback + "\n";
  }
  if (q.timeout_seconds) text += fmt::format("Timeout: {}s\n", *q.timeout_seconds);
  return text;
}

/// How an answer reads in the audit trail: the chosen option, else the text, else the value.
std::string answer_shown(const Answer& answer, const Choice* selected) {
  if (selected) return "[" + selected->key + "] " + label_without_accelerator(selected->label);
  if (!answer.text.empty()) return answer.text;
  return answer.value;
}

/// InterviewCompleted: the answer, the option it took (its label without the accelerator, when it
/// took one) and who answered (`answered_by`, the interviewer's source).
void emit_completed(const NodeData& node, const Question& q, const Answer& answer, const Choice* selected,
                    const StageEnv& env, std::int64_t started) {
  nlohmann::json fields = {{"question", q.text},
                           {"stage", node.id},
                           {"answer", answer.to_json()},
                           {"shown", answer_shown(answer, selected)},
                           {"answered_by", answer.source.empty() ? "unknown" : answer.source},
                           {"duration_ms", env.clock ? env.clock->now_ms() - started : 0}};
  if (selected) fields["option"] = label_without_accelerator(selected->label);
  env.emit(kInterviewCompletedEvent, std::move(fields));
}

/// Adds the gate's audit trail to `outcome` (status.json `gate`) and writes `response.md` when an
/// answer came (nothing answered after a timeout without a default).
Outcome with_audit(Outcome outcome, const Question& q, const Answer* answer, const Choice* selected,
                   const StageEnv& env) {
  nlohmann::json options = nlohmann::json::array();
  for (const Option& o : q.options) options.push_back(o.label);
  nlohmann::json gate = {{"question", q.text}, {"type", type_attribute(q.type)}, {"options", options}};
  if (answer) {
    gate["answer"] = answer_shown(*answer, selected);
    gate["answered_by"] = answer->source.empty() ? "unknown" : answer->source;
    std::string response = "Answer: " + gate["answer"].get<std::string>() +
                           "\nAnswered by: " + gate["answered_by"].get<std::string>() + "\n";
    if (!outcome.failure_reason.empty()) response += "Result: " + outcome.failure_reason + "\n";
    env.write_file((std::filesystem::path(env.stage_dir) / "response.md").string(), response);
  } else {
    gate["answer"] = nullptr;
    gate["answered_by"] = nullptr;
  }
  outcome.stage_info["gate"] = std::move(gate);
  return outcome;
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
  std::vector<Choice> choices = edge_choices(node, graph);
  if (choices.empty()) return Outcome::fail("No outgoing edges for human gate", ErrorCategory::kTerminal);
  if (!interviewer_) return Outcome::fail("no interviewer configured", ErrorCategory::kTerminal);

  Question q = make_question(node, *type, choices, env);
  env.write_file((std::filesystem::path(env.stage_dir) / "prompt.md").string(), gate_prompt(node, q));
  std::int64_t started = env.clock ? env.clock->now_ms() : 0;
  OrEnd<Answer> answer = ask(*interviewer_, node, q, choices, env, started);
  if (answer.end) return with_audit(std::move(*answer.end), q, nullptr, nullptr, env);
  if (answer.value.kind == AnswerKind::kSkipped) {
    emit_completed(node, q, answer.value, nullptr, env, started);
    return with_audit(Outcome::fail("human skipped interaction", ErrorCategory::kTerminal), q, nullptr, nullptr, env);
  }
  OrEnd<const Choice*> selected = select_choice(node, q, answer.value, choices);
  emit_completed(node, q, answer.value, selected.value, env, started);
  if (selected.end) return with_audit(std::move(*selected.end), q, &answer.value, nullptr, env);
  return with_audit(answered_outcome(q, answer.value, selected.value), q, &answer.value, selected.value, env);
}

const HandlerDescription& wait_human_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "wait.human";
    d.shapes = {"hexagon"};
    d.summary = "A human gate: asks a question whose options are the outgoing edges and follows the answer.";
    d.attributes = {
        {"human.question_type",
         AttributeType::kEnum,
         "multiple_choice",
         "How the question is asked: multiple_choice (the outgoing edges as options), yes_no, confirmation or "
         "freeform.",
         {"multiple_choice", "yes_no", "confirmation", "freeform"}},
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
