#include "attractor/base/clock.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
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
  for (;;) {
    if (cancel.cancelled()) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    wait_readable(-1, static_cast<int>(std::min<std::int64_t>(left.count(), INT32_MAX)), cancel);
  }
}

CancelToken::Flag::~Flag() {
  if (int fd = wake_fd.load(); fd >= 0) ::close(fd);
}

void CancelToken::Flag::raise() {
  raised.store(true);
  if (int fd = wake_fd.load(); fd >= 0) {
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(fd, &one, sizeof one);
  }
}

int CancelToken::Flag::fd() {
  int fd = wake_fd.load();
  if (fd >= 0) return fd;
  int made = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (made < 0) return -1;
  if (!wake_fd.compare_exchange_strong(fd, made)) {
    ::close(made);
    return fd;
  }
  if (raised.load()) raise();
  return made;
}

std::size_t CancelToken::wake_fds(int (&out)[kMaxWakeFds]) const {
  std::size_t n = 0;
  for (const auto& f : flags_) {
    if (n == kMaxWakeFds) break;
    if (int fd = f->fd(); fd >= 0) out[n++] = fd;
  }
  return n;
}

bool wait_readable(int fd, int timeout_ms, const CancelToken& cancel) {
  int wake[CancelToken::kMaxWakeFds];
  std::size_t n = cancel.wake_fds(wake);
  pollfd fds[CancelToken::kMaxWakeFds + 1];
  fds[0] = {fd, POLLIN, 0};
  for (std::size_t i = 0; i < n; ++i) fds[i + 1] = {wake[i], POLLIN, 0};
  if (cancel.cancelled()) return false;
  for (;;) {
    int r = ::poll(fds, static_cast<nfds_t>(n + 1), timeout_ms);
    if (r < 0 && errno == EINTR) {
      if (cancel.cancelled()) return false;
      continue;
    }
    return r > 0 && fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
  }
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
  auto floor_div = [](std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
  const std::int64_t days = floor_div(epoch_ms, 86'400'000);
  const std::int64_t ms_of_day = epoch_ms - days * 86'400'000;
  // Proleptic Gregorian date of `days` since 1970-01-01, counted in 400-year eras from 0000-03-01.
  const std::int64_t z = days + 719'468;
  const std::int64_t era = floor_div(z, 146'097);
  const std::int64_t doe = z - era * 146'097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) {
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", year, month, day, ms_of_day / 3'600'000,
                       ms_of_day / 60'000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
  }
  char text[] = "0000-00-00T00:00:00.000Z";
  auto put = [&text](int at, std::int64_t value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10) text[at + i] = static_cast<char>('0' + value % 10);
  };
  put(0, year, 4);
  put(5, month, 2);
  put(8, day, 2);
  put(11, ms_of_day / 3'600'000, 2);
  put(14, ms_of_day / 60'000 % 60, 2);
  put(17, ms_of_day / 1000 % 60, 2);
  put(20, ms_of_day % 1000, 3);
  return std::string(text, sizeof(text) - 1);
}

}  // namespace attractor
