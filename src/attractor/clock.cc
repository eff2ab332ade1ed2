#include "attractor/clock.h"

#include <algorithm>
#include <ctime>
#include <thread>

#include <fmt/format.h>

namespace attractor {

std::int64_t SystemClock::now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

bool SystemClock::sleep_ms(std::int64_t ms, const CancelToken& cancel) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
    if (cancel.cancelled()) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(20)));
  }
  return !cancel.cancelled();
}

std::int64_t FakeClock::now_ms() {
  std::lock_guard lock(mutex_);
  return now_;
}

bool FakeClock::sleep_ms(std::int64_t ms, const CancelToken& cancel) {
  std::lock_guard lock(mutex_);
  sleeps_.push_back(ms);
  now_ += ms;
  return !cancel.cancelled();
}

void FakeClock::advance(std::int64_t ms) {
  std::lock_guard lock(mutex_);
  now_ += ms;
}

std::vector<std::int64_t> FakeClock::sleeps() const {
  std::lock_guard lock(mutex_);
  return sleeps_;
}

Clock& system_clock() {
  static SystemClock clock;
  return clock;
}

std::string format_iso8601(std::int64_t epoch_ms) {
  std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(epoch_ms % 1000));
}

}  // namespace attractor
