#include "attractor/server/gate_slot_interviewer.h"

namespace attractor {

GateSlotInterviewer::GateSlotInterviewer(std::shared_ptr<Interviewer> inner, std::function<void()> waiting,
                                         std::function<void()> answered)
    : inner_(std::move(inner)), waiting_(std::move(waiting)), answered_(std::move(answered)) {}

Answer GateSlotInterviewer::ask(const Question& question) {
  waiting_();
  Answer answer;
  try {
    answer = inner_->ask(question);
  } catch (...) {
    answered_();
    throw;
  }
  answered_();
  return answer;
}

void GateSlotInterviewer::inform(const std::string& message, const std::string& stage) {
  inner_->inform(message, stage);
}

}  // namespace attractor
