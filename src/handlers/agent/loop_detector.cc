#include "handlers/agent/loop_detector.h"

#include "attractor/base/sha256.h"

namespace attractor {

LoopVerdict LoopDetector::record(const std::string& tool, const nlohmann::json& arguments) {
  signatures_.push_back(tool + ":" + sha256_hex(arguments.dump()));
  if (!looping()) return LoopVerdict::kContinue;
  if (warned_at_ == 0) {
    warned_at_ = signatures_.size();
    return LoopVerdict::kWarn;
  }
  return signatures_.size() >= warned_at_ + window_ ? LoopVerdict::kStop : LoopVerdict::kContinue;
}

bool LoopDetector::looping() const {
  if (signatures_.size() < window_) return false;
  const auto recent = signatures_.end() - static_cast<std::ptrdiff_t>(window_);
  for (std::size_t length : {1u, 2u, 3u}) {
    if (window_ % length != 0) continue;
    bool all = true;
    for (std::size_t i = length; i < window_ && all; ++i) all = recent[i] == recent[i % length];
    if (all) return true;
  }
  return false;
}

std::string LoopDetector::warning_text(std::size_t window) {
  return "Loop detected: your last " + std::to_string(window) +
         " tool calls repeat the same pattern with the same arguments. Stop repeating them: re-read the "
         "task, look at the results you already have, and try a different approach.";
}

}  // namespace attractor
