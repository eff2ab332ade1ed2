#pragma once
/// \file
/// The interviewer a server run's engine asks through: it passes each question to the run's
/// WebInterviewer and tells the run registry when the run starts and stops waiting for a person,
/// so a run at a human gate gives its execution slot back (docs/server.md section 1, "Slots").

#include <functional>
#include <memory>

#include "handlers/services/interviewer.h"

namespace attractor {

class GateSlotInterviewer : public Interviewer {
 public:
  /// `waiting()` runs before a question is asked, `answered()` after its answer (or timeout or
  /// cancellation) arrived; `answered()` may block until the run has a slot again.
  GateSlotInterviewer(std::shared_ptr<Interviewer> inner, std::function<void()> waiting,
                      std::function<void()> answered);

  /// Asks `inner`, bracketed by `waiting()` and `answered()`.
  Answer ask(const Question& question) override;
  /// Passes the message on.
  void inform(const std::string& message, const std::string& stage) override;

 private:
  std::shared_ptr<Interviewer> inner_;
  std::function<void()> waiting_;
  std::function<void()> answered_;
};

}  // namespace attractor
