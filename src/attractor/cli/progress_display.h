#pragma once
/// \file
/// The console progress display: one line per finished stage with status and duration, a live
/// "running" line for the current stage when the output is a terminal, and visible retries,
/// human questions and parallel blocks. `attractor run` shows it on stderr unless `--quiet`.

#include <cstdio>
#include <map>
#include <mutex>
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
  std::FILE* out_;
  bool live_;
  bool verbose_;
  bool live_shown_ = false;
  std::mutex mutex_;
};

/// "850ms", "12.3s", "4m05s".
std::string format_duration(std::int64_t ms);

}  // namespace attractor
