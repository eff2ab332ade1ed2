#pragma once
/// \file
/// The console progress display: one line per finished stage with status and duration, a live
/// "running" line for the current stage when the output is a terminal, and visible retries,
/// human questions and their answers (the option taken and who answered), and parallel blocks.
/// A stage still waiting on a model or a command shows its elapsed time on each StageWaiting
/// event (`… plan waiting on the model (30.0s)`): a line of its own, or the live line on a
/// terminal. `attractor run` shows it on stderr unless `--quiet`.
///
/// A stage answered by the simulation backend is marked `(simulated)` on its line. Under a failed
/// stage the display shows the tail of its output when the stage reports one (`stderr_tail`, else
/// `stdout_tail`, event fields a failed tool stage sets), each line prefixed with `│`; control
/// characters in it are shown as `?`, so a tool's output cannot drive the terminal.

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "attractor/engine/events.h"

namespace attractor {

class ProgressDisplay : public EventObserver {
 public:
  /// `live` enables the transient running line (use when `out` is a terminal).
  ProgressDisplay(std::FILE* out, bool live, bool verbose = false) : out_(out), live_(live), verbose_(verbose) {}
  void on_event(const Event& event) override;

 private:
  void clear_live();
  /// The `│`-prefixed output tail lines of a StageFailed event ("" when it has none).
  static std::string output_tail(const nlohmann::json& fields);
  std::FILE* out_;
  std::set<std::string> simulated_;  ///< stages whose last LLM call went to the simulation
  bool live_;
  bool verbose_;
  bool live_shown_ = false;
  std::mutex mutex_;
};

/// "850ms", "12.3s", "4m05s".
std::string format_duration(std::int64_t ms);

}  // namespace attractor
