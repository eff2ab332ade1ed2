#pragma once
/// \file
/// Time as a side effect: the engine reads the clock and sleeps only through `Clock`, so tests
/// substitute `FakeClock` and never sleep for real.

#include <atomic>
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace attractor {

/// A cancellation flag shared by the engine, handlers and subprocesses. Copies share state; a
/// child token is cancelled with its parent but can also be cancelled alone (parallel branches).
/// A waiter need not poll the flag: wake_fds() gives descriptors that become readable once the
/// token is cancelled, so a wait in poll() ends at once (subprocess.h, SystemClock::sleep_ms).
class CancelToken {
 public:
  /// The most descriptors wake_fds() reports: one per level of child() nesting.
  static constexpr std::size_t kMaxWakeFds = 8;

  CancelToken() : flags_{std::make_shared<Flag>()} {}
  /// Sets the flag and wakes every waiter. Async-signal-safe (a SIGINT handler calls it).
  void cancel() const { flags_.front()->raise(); }
  bool cancelled() const {
    for (const auto& f : flags_) {
      if (f->raised.load()) return true;
    }
    return false;
  }
  CancelToken child() const {
    CancelToken c;
    c.flags_.insert(c.flags_.end(), flags_.begin(), flags_.end());
    return c;
  }
  /// Fills `out` with descriptors (an eventfd per flag, made on first use) that poll() reports
  /// readable once the token is cancelled; the count written, at most kMaxWakeFds. Check
  /// cancelled() after taking them: a cancel before that may have found no descriptor to wake.
  std::size_t wake_fds(int (&out)[kMaxWakeFds]) const;

 private:
  struct Flag {
    std::atomic<bool> raised{false};
    std::atomic<int> wake_fd{-1};
    Flag() = default;
    Flag(const Flag&) = delete;
    Flag& operator=(const Flag&) = delete;
    ~Flag();
    void raise();
    int fd();
  };
  std::vector<std::shared_ptr<Flag>> flags_;
};

/// Waits up to `timeout_ms` (-1: no limit) for `fd` to become readable or `cancel` to fire; true
/// when `fd` is readable (a cancel that comes first returns false at once).
bool wait_readable(int fd, int timeout_ms, const CancelToken& cancel);

/// Wall clock and sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Milliseconds since the Unix epoch.
  virtual std::int64_t now_ms() = 0;
  /// Sleeps up to `ms`, returning early (false) when `cancel` fires.
  virtual bool sleep_ms(std::int64_t ms, const CancelToken& cancel) = 0;
};

/// The real clock; a sleep ends as soon as its token is cancelled.
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
