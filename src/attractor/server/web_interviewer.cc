#include "attractor/server/web_interviewer.h"

#include "attractor/base/ascii.h"

#include <algorithm>
#include <chrono>

namespace attractor {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// Numeric part of "q17" for ordering; ids are generated, so the form is known.
std::uint64_t ordinal(const std::string& id) { return std::stoull(id.substr(1)); }

}  // namespace

WebInterviewer::WebInterviewer(Clock* clock, std::uint64_t first)
    : clock_(clock ? clock : &system_clock()), next_(first == 0 ? 1 : first) {}

std::uint64_t WebInterviewer::next_ordinal() const {
  std::lock_guard lock(mutex_);
  return next_;
}

std::optional<Answer> WebInterviewer::interpret(const Question& q, const std::string& raw) {
  const std::string input = trim(raw);
  if (q.type == QuestionType::kFreeform) {
    Answer a = Answer::of(input);
    a.text = input;
    return a;
  }
  if (q.type == QuestionType::kMultipleChoice) {
    std::optional<Option> o = match_option(input, q.options);
    if (!o) return std::nullopt;
    Answer a = Answer::of(o->key);
    a.selected_option = o;
    return a;
  }
  const std::string l = ascii_lower(input);
  if (l == "y" || l == "yes") return Answer::yes();
  if (l == "n" || l == "no") return Answer::no();
  return std::nullopt;
}

Answer WebInterviewer::ask(const Question& question) {
  std::unique_lock lock(mutex_);
  if (cancelled_) return Answer::skipped();
  const std::string id = "q" + std::to_string(next_++);
  open_[id] = Pending{question, format_iso8601(clock_->now_ms()), std::nullopt};
  auto done = [&] { return cancelled_ || open_[id].answer.has_value(); };
  bool finished = true;
  if (question.timeout_seconds) {
    finished = answered_.wait_for(lock, std::chrono::duration<double>(*question.timeout_seconds), done);
  } else {
    answered_.wait(lock, done);
  }
  Answer result = !finished ? Answer::timeout() : open_[id].answer ? *open_[id].answer : Answer::skipped();
  open_.erase(id);
  done_[id] = true;
  return result;
}

AnswerResult WebInterviewer::answer(const std::string& id, const std::string& input, std::string* error) {
  std::lock_guard lock(mutex_);
  auto it = open_.find(id);
  if (it == open_.end() || it->second.answer) {
    if (done_.count(id) || (it != open_.end() && it->second.answer)) {
      if (error) *error = "question " + id + " was already answered or timed out";
      return AnswerResult::kAlreadyDone;
    }
    if (error) *error = "no question " + id + " in this run";
    return AnswerResult::kUnknown;
  }
  std::optional<Answer> a = interpret(it->second.question, input);
  if (!a) {
    if (error) {
      *error = "'" + input + "' is not an answer to this question";
      if (it->second.question.type == QuestionType::kMultipleChoice) {
        std::string keys;
        for (const Option& o : it->second.question.options) keys += (keys.empty() ? "" : ", ") + o.key;
        *error += " (options: " + keys + ")";
      } else {
        *error += " (yes or no)";
      }
    }
    return AnswerResult::kNoMatch;
  }
  a->source = "web";
  it->second.answer = std::move(a);
  answered_.notify_all();
  return AnswerResult::kAccepted;
}

void WebInterviewer::cancel_all() {
  std::lock_guard lock(mutex_);
  cancelled_ = true;
  answered_.notify_all();
}

nlohmann::json WebInterviewer::describe(const std::string& id, const Pending& p) const {
  const Question& q = p.question;
  nlohmann::json options = nlohmann::json::array();
  for (const Option& o : q.options) options.push_back({{"key", o.key}, {"label", o.label}});
  nlohmann::json j = {{"id", id},
                      {"stage", q.stage},
                      {"type", ascii_lower(question_type_name(q.type))},
                      {"text", q.text},
                      {"options", options},
                      {"default", nullptr},
                      {"timeout_s", nullptr},
                      {"asked_at", p.asked_at}};
  if (q.metadata.is_object() && q.metadata.contains("default_choice") && q.metadata["default_choice"].is_string() &&
      !q.metadata["default_choice"].get<std::string>().empty()) {
    j["default"] = q.metadata["default_choice"];
  }
  if (q.timeout_seconds) j["timeout_s"] = *q.timeout_seconds;
  return j;
}

nlohmann::json WebInterviewer::pending() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [id, p] : open_) {
    if (!p.answer) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end(), [](const auto& a, const auto& b) { return ordinal(a) < ordinal(b); });
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& id : ids) out.push_back(describe(id, open_.at(id)));
  return out;
}

std::size_t WebInterviewer::pending_count() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(
      std::count_if(open_.begin(), open_.end(), [](const auto& e) { return !e.second.answer; }));
}

}  // namespace attractor
