#pragma once
/// \file
/// Time as a side effect: the engine reads the clock and sleeps only through `Clock`, so tests
/// substitute `FakeClock` and never sleep for real.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace attractor {

/// A cancellation flag shared by the engine, handlers and subprocesses. Copies share state; a
/// child token is cancelled with its parent but can also be cancelled alone (parallel branches).
class CancelToken {
 public:
  CancelToken() : flags_{std::make_shared<std::atomic<bool>>(false)} {}
  void cancel() const { flags_.front()->store(true); }
  bool cancelled() const {
    for (const auto& f : flags_) {
      if (f->load()) return true;
    }
    return false;
  }
  /// The token's own flag, for async-signal-safe cancellation from a signal handler.
  std::atomic<bool>* flag() const { return flags_.front().get(); }
  CancelToken child() const {
    CancelToken c;
    c.flags_.insert(c.flags_.end(), flags_.begin(), flags_.end());
    return c;
  }

 private:
  std::vector<std::shared_ptr<std::atomic<bool>>> flags_;
};

/// Wall clock and sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Milliseconds since the Unix epoch.
  virtual std::int64_t now_ms() = 0;
  /// Sleeps up to `ms`, returning early (false) when `cancel` fires.
  virtual bool sleep_ms(std::int64_t ms, const CancelToken& cancel) = 0;
};

/// The real clock; sleeps in small slices so cancellation is prompt.
class SystemClock : public Clock {
 public:
  std::int64_t now_ms() override;
  bool sleep_ms(std::int64_t ms, const CancelToken& cancel) override;
};

/// Test clock: `sleep_ms` advances time instantly and records every requested delay.
class FakeClock : public Clock {
 public:
  explicit FakeClock(std::int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}
  std::int64_t now_ms() override;
  bool sleep_ms(std::int64_t ms, const CancelToken& cancel) override;
  void advance(std::int64_t ms);
  std::vector<std::int64_t> sleeps() const;

 private:
  mutable std::mutex mutex_;
  std::int64_t now_;
  std::vector<std::int64_t> sleeps_;
};

/// The process-wide real clock.
Clock& system_clock();

/// ISO-8601 UTC with milliseconds, e.g. "2026-11-21T19:54:05.123Z".
std::string format_iso8601(std::int64_t epoch_ms);

}  // namespace attractor
