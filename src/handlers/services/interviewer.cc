#include "handlers/services/interviewer.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

#include "attractor/base/ascii.h"
#include "attractor/base/input_file.h"
#include "attractor/base/json_limits.h"
#include "attractor/engine/edge_selection.h"
#include "attractor/run/run_directory.h"

namespace attractor {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

Answer answer_from_string(const std::string& s) {
  std::string l = ascii_lower(trim(s));
  if (l == "yes" || l == "y") return Answer{AnswerKind::kYes, trim(s), std::nullopt, ""};
  if (l == "no" || l == "n") return Answer{AnswerKind::kNo, trim(s), std::nullopt, ""};
  if (l == "skip" || l == "skipped") return Answer::skipped();
  if (l == "timeout") return Answer::timeout();
  return Answer::of(trim(s));
}

Answer answer_from_json(const nlohmann::json& j) {
  if (j.is_string()) return answer_from_string(j.get<std::string>());
  if (j.is_boolean()) return j.get<bool>() ? Answer::yes() : Answer::no();
  if (j.is_object()) {
    Answer a = answer_from_string(j.value("answer", j.value("value", std::string())));
    a.text = j.value("text", std::string());
    if (a.value.empty() && !a.text.empty()) a.value = a.text;
    return a;
  }
  throw std::runtime_error("an answer must be a string, a boolean or an object");
}

const char* kind_name(AnswerKind k) {
  switch (k) {
    case AnswerKind::kValue: return "value";
    case AnswerKind::kYes: return "yes";
    case AnswerKind::kNo: return "no";
    case AnswerKind::kSkipped: return "skipped";
    case AnswerKind::kTimeout: return "timeout";
    case AnswerKind::kUnavailable: return "unavailable";
  }
  return "value";
}

}  // namespace

const char* question_type_name(QuestionType type) {
  switch (type) {
    case QuestionType::kYesNo: return "YES_NO";
    case QuestionType::kMultipleChoice: return "MULTIPLE_CHOICE";
    case QuestionType::kFreeform: return "FREEFORM";
    case QuestionType::kConfirmation: return "CONFIRMATION";
  }
  return "MULTIPLE_CHOICE";
}

nlohmann::json Answer::to_json() const {
  nlohmann::json j = {{"kind", kind_name(kind)}, {"value", value}};
  if (selected_option) j["selected_option"] = {{"key", selected_option->key}, {"label", selected_option->label}};
  if (!text.empty()) j["text"] = text;
  if (!source.empty()) j["source"] = source;
  return j;
}

nlohmann::json Question::to_json() const {
  nlohmann::json options_json = nlohmann::json::array();
  for (const auto& o : options) options_json.push_back({{"key", o.key}, {"label", o.label}});
  nlohmann::json j = {{"text", text}, {"type", question_type_name(type)}, {"options", options_json}, {"stage", stage}};
  if (timeout_seconds) j["timeout_seconds"] = *timeout_seconds;
  return j;
}

std::vector<Answer> Interviewer::ask_multiple(const std::vector<Question>& questions) {
  std::vector<Answer> out;
  for (const auto& q : questions) out.push_back(ask(q));
  return out;
}

std::optional<Option> match_option(const std::string& input, const std::vector<Option>& options) {
  std::string t = trim(input);
  if (t.empty()) return std::nullopt;
  for (const auto& o : options) {
    if (ascii_lower(o.key) == ascii_lower(t)) return o;
  }
  for (const auto& o : options) {
    if (ascii_lower(o.label) == ascii_lower(t) || normalize_label(o.label) == normalize_label(t)) return o;
  }
  if (std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); }) && t.size() < 6) {
    std::size_t n = std::stoul(t);
    if (n >= 1 && n <= options.size()) return options[n - 1];
  }
  return std::nullopt;
}

Answer AutoApproveInterviewer::ask(const Question& q) {
  Answer a;
  if (q.type == QuestionType::kYesNo || q.type == QuestionType::kConfirmation) {
    a = Answer::yes();
  } else if (q.type == QuestionType::kMultipleChoice && !q.options.empty()) {
    a = Answer::of(q.options.front().key);
    a.selected_option = q.options.front();
  } else {
    a = Answer::of("auto-approved");
    a.text = "auto-approved";
  }
  a.source = "auto-approve";
  return a;
}

QueueInterviewer::QueueInterviewer(std::vector<Answer> answers) : answers_(answers.begin(), answers.end()) {}

void QueueInterviewer::push(Answer answer) {
  std::lock_guard lock(mutex_);
  answers_.push_back(std::move(answer));
}

void QueueInterviewer::push_for_stage(const std::string& stage, Answer answer) {
  std::lock_guard lock(mutex_);
  by_stage_[stage].push_back(std::move(answer));
}

Answer QueueInterviewer::ask(const Question& question) {
  std::lock_guard lock(mutex_);
  auto it = by_stage_.find(question.stage);
  Answer a = Answer::unavailable(source_ == "file" ? "the answers file has no answer left for it"
                                                   : "no answer is queued for it");
  if (it != by_stage_.end() && !it->second.empty()) {
    a = it->second.front();
    it->second.pop_front();
  } else if (!answers_.empty()) {
    a = answers_.front();
    answers_.pop_front();
  }
  if (a.source.empty()) a.source = source_;
  return a;
}

std::size_t QueueInterviewer::remaining() const {
  std::lock_guard lock(mutex_);
  std::size_t n = answers_.size();
  for (const auto& [stage, q] : by_stage_) n += q.size();
  return n;
}

std::vector<std::string> QueueInterviewer::stages() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [stage, queue] : by_stage_) ids.push_back(stage);
  return ids;
}

void QueueInterviewer::skip(const std::string& stage) {
  Question q;
  q.stage = stage;
  ask(q);
}

std::unique_ptr<QueueInterviewer> queue_from_json(const nlohmann::json& j) {
  auto queue = std::make_unique<QueueInterviewer>();
  if (j.is_array()) {
    for (const auto& a : j) queue->push(answer_from_json(a));
  } else if (j.is_object()) {
    for (const auto& [stage, v] : j.items()) {
      if (v.is_array()) {
        for (const auto& a : v) queue->push_for_stage(stage, answer_from_json(a));
      } else {
        queue->push_for_stage(stage, answer_from_json(v));
      }
    }
  } else {
    throw std::runtime_error("answers must be a JSON array or object");
  }
  return queue;
}

std::unique_ptr<QueueInterviewer> load_answers_file(const std::string& path) {
  nlohmann::json j = parse_json_limited(read_input_file_or_throw(path, kJsonFileRules), path, kMaxValueDepth);
  try {
    std::unique_ptr<QueueInterviewer> queue = queue_from_json(j);
    queue->set_source("file");
    return queue;
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

Answer RecordingInterviewer::ask(const Question& question) {
  Answer a = inner_->ask(question);
  std::lock_guard lock(mutex_);
  recordings_.emplace_back(question, a);
  return a;
}

std::vector<std::pair<Question, Answer>> RecordingInterviewer::recordings() const {
  std::lock_guard lock(mutex_);
  return recordings_;
}

std::optional<std::string> ConsoleInterviewer::read_line(std::optional<double> timeout_seconds, bool* timed_out) {
  *timed_out = false;
  std::string line;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<std::int64_t>(timeout_seconds.value_or(0) * 1000));
  while (true) {
    int wait = -1;
    if (timeout_seconds) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        *timed_out = true;
        return std::nullopt;
      }
      wait = static_cast<int>(left.count());
    }
    pollfd pfd{input_fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, wait);
    if (r == 0) {
      *timed_out = true;
      return std::nullopt;
    }
    if (r < 0) return std::nullopt;
    char c;
    ssize_t n = ::read(input_fd_, &c, 1);
    if (n <= 0) return line.empty() ? std::nullopt : std::optional<std::string>(line);
    if (c == '\n') return line;
    line.push_back(c);
  }
}

Answer ConsoleInterviewer::ask(const Question& q) {
  std::lock_guard lock(mutex_);
  Answer a = read_answer(q);
  a.source = "console";
  return a;
}

Answer ConsoleInterviewer::read_answer(const Question& q) {
  std::fprintf(output_, "\n[?] %s%s\n", q.text.c_str(), q.stage.empty() ? "" : ("  (" + q.stage + ")").c_str());
  if (q.type == QuestionType::kMultipleChoice) {
    for (std::size_t i = 0; i < q.options.size(); ++i) {
      std::fprintf(output_, "  %zu. [%s] %s\n", i + 1, q.options[i].key.c_str(),
                   label_without_accelerator(q.options[i].label).c_str());
    }
  }
  const char* prompt = q.type == QuestionType::kMultipleChoice ? "Select: "
                       : q.type == QuestionType::kFreeform     ? "> "
                                                               : "[Y/N]: ";
  for (int tries = 0; tries < 3; ++tries) {
    std::fprintf(output_, "%s", prompt);
    if (q.timeout_seconds) std::fprintf(output_, "(%.0fs) ", *q.timeout_seconds);
    std::fflush(output_);
    bool timed_out = false;
    std::optional<std::string> line = read_line(q.timeout_seconds, &timed_out);
    if (timed_out) {
      std::fprintf(output_, "\n(timed out)\n");
      return q.default_answer ? *q.default_answer : Answer::timeout();
    }
    if (!line) {
      std::fprintf(output_, "\n");  // ends the prompt's line
      return Answer::unavailable("standard input ended before an answer (no terminal to ask on)");
    }
    std::string input = trim(*line);
    if (q.type == QuestionType::kMultipleChoice) {
      if (auto o = match_option(input, q.options)) {
        Answer a = Answer::of(o->key);
        a.selected_option = o;
        return a;
      }
      std::fprintf(output_, "not an option: %s\n", input.c_str());
      continue;
    }
    if (q.type == QuestionType::kFreeform) {
      Answer a = Answer::of(input);
      a.text = input;
      return a;
    }
    std::string l = ascii_lower(input);
    if (l == "y" || l == "yes") return Answer::yes();
    if (l == "n" || l == "no") return Answer::no();
    std::fprintf(output_, "please answer y or n\n");
  }
  return Answer::skipped();
}

void ConsoleInterviewer::inform(const std::string& message, const std::string& stage) {
  std::lock_guard lock(mutex_);
  std::fprintf(output_, "[i] %s%s\n", message.c_str(), stage.empty() ? "" : (" (" + stage + ")").c_str());
}

}  // namespace attractor
