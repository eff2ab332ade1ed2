#pragma once
/// \file
/// The interviewer of server runs: a gate's question is published (listed by
/// `GET /pipelines/{id}/questions`) and the stage waits until an answer arrives through the API,
/// the question's timeout passes (the handler then applies `human.default_choice`, as on the
/// console) or the run is cancelled.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/base/clock.h"
#include "handlers/services/interviewer.h"

namespace attractor {

/// What `answer()` did with a submitted answer; each maps to one HTTP status.
enum class AnswerResult {
  kAccepted,     ///< 200: the waiting stage has it
  kNoMatch,      ///< 400: the answer designates no option; nothing was picked
  kUnknown,      ///< 404: no such question
  kAlreadyDone,  ///< 409: answered, timed out or cancelled before
};

class WebInterviewer : public Interviewer {
 public:
  /// `clock` stamps `asked_at`; nullptr = the system clock.
  /// Question ids start at `q<first>`: a resumed run continues its earlier part's numbering, so
  /// a stale page cannot answer a new question with an old id.
  explicit WebInterviewer(Clock* clock = nullptr, std::uint64_t first = 1);

  /// Publishes `question` as `q<N>` and blocks until it is answered, times out (Answer::timeout)
  /// or is cancelled (Answer::skipped).
  Answer ask(const Question& question) override;

  /// The questions waiting for an answer, oldest first, in the API's JSON form.
  nlohmann::json pending() const;
  std::size_t pending_count() const;

  /// Offers `input` (an option key or label, yes/no, or free text) to question `id`.
  AnswerResult answer(const std::string& id, const std::string& input, std::string* error);

  /// Ends every waiting question with SKIPPED and makes later ones return at once (the run is
  /// being cancelled).
  void cancel_all();

  /// The number the next question gets.
  std::uint64_t next_ordinal() const;

 private:
  struct Pending {
    Question question;
    std::string asked_at;
    std::optional<Answer> answer;
  };
  /// The answer `input` stands for under `q`'s type, or nullopt when it designates nothing.
  static std::optional<Answer> interpret(const Question& q, const std::string& input);
  nlohmann::json describe(const std::string& id, const Pending& p) const;

  Clock* clock_;
  mutable std::mutex mutex_;
  std::condition_variable answered_;
  std::map<std::string, Pending> open_;  ///< keyed "q1", "q2", ...; erased when done
  std::map<std::string, bool> done_;     ///< ids no longer open
  std::uint64_t next_ = 1;
  bool cancelled_ = false;
};

}  // namespace attractor
