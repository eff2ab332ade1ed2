#pragma once
/// \file
/// Human-in-the-loop (spec §6): questions, answers and the Interviewer implementations
/// (auto-approve, queue, callback, recording, console).

#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor {

enum class QuestionType { kYesNo, kMultipleChoice, kFreeform, kConfirmation };
const char* question_type_name(QuestionType type);

struct Option {
  std::string key;    ///< accelerator key, e.g. "Y"
  std::string label;  ///< display text
};

/// YES/NO/SKIPPED/TIMEOUT, or a selected option / free text (kValue). UNAVAILABLE: the
/// interviewer could not ask at all (no terminal, end of input, no answer left in an answers
/// file, the run's web session gone); the gate then stops the run as interrupted, so that a
/// resume asks again (docs/decisions.md, "Gates a person can recover from").
enum class AnswerKind { kValue, kYes, kNo, kSkipped, kTimeout, kUnavailable };

struct Answer {
  AnswerKind kind = AnswerKind::kValue;
  std::string value;  ///< option key or free value
  std::optional<Option> selected_option;
  std::string text;  ///< free text (FREEFORM)
  /// Who or what answered, for the gate's audit trail: `console`, `file` (--answers),
  /// `auto-approve`, `queue` (a queue filled in code), `web`; set by the interviewer.
  std::string source;

  static Answer yes() { return {AnswerKind::kYes, "yes", std::nullopt, "", ""}; }
  static Answer no() { return {AnswerKind::kNo, "no", std::nullopt, "", ""}; }
  static Answer skipped() { return {AnswerKind::kSkipped, "skipped", std::nullopt, "", ""}; }
  static Answer timeout() { return {AnswerKind::kTimeout, "timeout", std::nullopt, "", ""}; }
  static Answer of(std::string value) { return {AnswerKind::kValue, std::move(value), std::nullopt, "", ""}; }
  /// Nobody could be asked; `why` (in `text`) says what was missing, e.g. "standard input is closed".
  static Answer unavailable(std::string why) {
    return {AnswerKind::kUnavailable, "unavailable", std::nullopt, std::move(why), ""};
  }
  nlohmann::json to_json() const;
};

struct Question {
  std::string text;
  QuestionType type = QuestionType::kMultipleChoice;
  std::vector<Option> options;
  std::optional<Answer> default_answer;
  std::optional<double> timeout_seconds;
  std::string stage;
  nlohmann::json metadata = nlohmann::json::object();
  nlohmann::json to_json() const;
};

/// Presents questions to a human (or a stand-in). Must be safe to call from branch threads.
class Interviewer {
 public:
  virtual ~Interviewer() = default;
  virtual Answer ask(const Question& question) = 0;
  virtual std::vector<Answer> ask_multiple(const std::vector<Question>& questions);
  virtual void inform(const std::string& message, const std::string& stage) {}
};

/// Yes for YES_NO/CONFIRMATION, the first option for MULTIPLE_CHOICE, "auto-approved" otherwise.
class AutoApproveInterviewer : public Interviewer {
 public:
  Answer ask(const Question& question) override;
};

/// Answers from a pre-filled queue; UNAVAILABLE when empty. Per-stage queues are consulted first.
/// Answers without a source of their own get the queue's (`queue`, or `file` for an answers file).
class QueueInterviewer : public Interviewer {
 public:
  QueueInterviewer() = default;
  explicit QueueInterviewer(std::vector<Answer> answers);
  void set_source(std::string source) { source_ = std::move(source); }
  void push(Answer answer);
  void push_for_stage(const std::string& stage, Answer answer);
  Answer ask(const Question& question) override;
  std::size_t remaining() const;
  /// The stage ids that have answers of their own (the object form of an answers file), sorted.
  std::vector<std::string> stages() const;
  /// Drops the answer `ask` would give `stage` next: a resumed run passes over the answers its
  /// earlier part consumed.
  void skip(const std::string& stage);

 private:
  mutable std::mutex mutex_;
  std::deque<Answer> answers_;
  std::map<std::string, std::deque<Answer>> by_stage_;
  std::string source_ = "queue";
};

/// Loads an `--answers FILE.json` queue. Accepted forms: an array of answers consumed in order,
/// or an object mapping a stage id to an answer or an array of answers. Each answer is a string
/// (an option key, a label, or "yes"/"no"/"skip"/"timeout") or {"answer": "...", "text": "..."}.
/// Throws std::runtime_error on malformed input.
std::unique_ptr<QueueInterviewer> load_answers_file(const std::string& path);
/// Same, from parsed JSON.
std::unique_ptr<QueueInterviewer> queue_from_json(const nlohmann::json& json);

/// Delegates to a function.
class CallbackInterviewer : public Interviewer {
 public:
  explicit CallbackInterviewer(std::function<Answer(const Question&)> callback) : callback_(std::move(callback)) {}
  Answer ask(const Question& question) override { return callback_(question); }

 private:
  std::function<Answer(const Question&)> callback_;
};

/// Wraps another interviewer and records every question and answer.
class RecordingInterviewer : public Interviewer {
 public:
  explicit RecordingInterviewer(std::shared_ptr<Interviewer> inner) : inner_(std::move(inner)) {}
  Answer ask(const Question& question) override;
  std::vector<std::pair<Question, Answer>> recordings() const;

 private:
  std::shared_ptr<Interviewer> inner_;
  mutable std::mutex mutex_;
  std::vector<std::pair<Question, Answer>> recordings_;
};

/// Prompts on a terminal: numbered options with their accelerator keys, reads a line, honours
/// `timeout_seconds` with poll(2). Input may be the option number, its key or its label. End of
/// input (or an input that cannot be read) before an answer is UNAVAILABLE.
class ConsoleInterviewer : public Interviewer {
 public:
  ConsoleInterviewer(int input_fd = 0, std::FILE* output = stderr) : input_fd_(input_fd), output_(output) {}
  Answer ask(const Question& question) override;
  void inform(const std::string& message, const std::string& stage) override;

 private:
  /// Shows `q` and reads its answer (mutex_ held).
  Answer read_answer(const Question& q);
  /// A line from input, nullopt on timeout or end of input.
  std::optional<std::string> read_line(std::optional<double> timeout_seconds, bool* timed_out);
  int input_fd_;
  std::FILE* output_;
  std::mutex mutex_;
};

/// The option an answer designates: key (case-insensitive), then label, then 1-based number.
std::optional<Option> match_option(const std::string& input, const std::vector<Option>& options);

}  // namespace attractor
