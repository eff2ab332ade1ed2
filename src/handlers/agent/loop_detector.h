#pragma once
/// \file
/// Loop detection of the coding agent (coding-agent-loop spec §2.10): each tool call is reduced
/// to a signature (tool name + SHA-256 of its canonical arguments); when the last `window` calls
/// are one pattern of 1, 2 or 3 calls repeated, the agent is going in circles. The first time the
/// loop gets a warning injected as a steering message; if the pattern is still there once the
/// window has filled again after that warning, the stage ends (the issue's "ends a stage that
/// repeats itself").

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor {

/// What the agent should do after a tool call.
enum class LoopVerdict { kContinue, kWarn, kStop };

class LoopDetector {
 public:
  explicit LoopDetector(std::size_t window = 10) : window_(window == 0 ? 1 : window) {}

  /// Records a call and says what to do.
  LoopVerdict record(const std::string& tool, const nlohmann::json& arguments);

  /// True when the last `window` signatures repeat one pattern of length 1, 2 or 3 (that
  /// divides the window).
  bool looping() const;

  /// The steering message of a warning.
  static std::string warning_text(std::size_t window);

 private:
  std::size_t window_;
  std::vector<std::string> signatures_;
  std::size_t warned_at_ = 0;  ///< calls recorded when the warning was given (0 = none)
};

}  // namespace attractor
