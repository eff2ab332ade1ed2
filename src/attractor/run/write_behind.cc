#include "attractor/run/write_behind.h"

#include <stdexcept>
#include <system_error>

#include "attractor/base/log.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/stage_visits.h"

namespace attractor {

namespace {

/// Logs the failure that stops the writer (the caller rethrows it on its own thread).
void log_failure(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    log().error("run directory write failed; later writes are dropped: {}", e.what());
  } catch (...) {
    log().error("run directory write failed; later writes are dropped");
  }
}

/// `error` as a RunWriteError with the same message (other exceptions unchanged).
std::exception_ptr as_write_error(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const RunWriteError&) {
    return error;
  } catch (const std::exception& e) {
    return std::make_exception_ptr(RunWriteError(e.what()));
  } catch (...) {
    return error;
  }
}

}  // namespace

WriteBehind::WriteBehind(bool background, std::size_t max_backlog_bytes)
    : WriteBehind(posix_run_disk(), background, max_backlog_bytes) {}

WriteBehind::WriteBehind(RunDisk& disk, bool background, std::size_t max_backlog_bytes)
    : disk_(disk), background_(background), max_backlog_bytes_(max_backlog_bytes) {
  if (background_) thread_ = std::thread([this] { loop(); });
}

WriteBehind::~WriteBehind() {
  if (!background_) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  thread_.join();
}

void WriteBehind::throw_if_failed_locked() const {
  if (failure_) std::rethrow_exception(failure_);
}

std::uint64_t WriteBehind::enqueue(Operation op, std::size_t bytes) {
  if (!background_) {
    std::uint64_t seq;
    {
      std::lock_guard lock(mutex_);
      throw_if_failed_locked();
      seq = next_seq_++;
      running_seq_ = seq;
    }
    try {
      op();
    } catch (...) {
      std::exception_ptr error = as_write_error(std::current_exception());
      log_failure(error);
      {
        std::lock_guard lock(mutex_);
        failure_ = error;
        failed_ = true;
        done_seq_ = seq;
      }
      std::rethrow_exception(error);
    }
    done_seq_ = seq;
    return seq;
  }
  std::unique_lock lock(mutex_);
  wait_progress(lock, 0, [&] {
    const std::size_t backlog = backlog_bytes_;
    return failed_ || backlog == 0 || backlog + bytes <= max_backlog_bytes_;
  });
  throw_if_failed_locked();
  const std::uint64_t seq = next_seq_++;
  queue_.push_back({seq, std::move(op), bytes});
  backlog_bytes_ += bytes;
  const bool wake = writer_waiting_;
  lock.unlock();
  if (wake) work_ready_.notify_one();
  return seq;
}

template <typename Predicate>
void WriteBehind::wait_progress(std::unique_lock<std::mutex>& lock, std::uint64_t wake_at, Predicate done) {
  if (done()) return;
  // Announce the wait (and what it waits for) before checking again: the writer publishes
  // progress first and looks for waiters second, so one of the two sides sees the other.
  ++callers_waiting_;
  while (true) {
    if (wake_at < wake_seq_) wake_seq_ = wake_at;
    if (done()) break;
    progress_.wait(lock);
  }
  --callers_waiting_;
}

void WriteBehind::notify_progress(std::uint64_t seq) {
  if (callers_waiting_ == 0 || seq < wake_seq_) return;
  std::lock_guard lock(mutex_);
  wake_seq_ = kNobodyWaits;
  progress_.notify_all();
}

void WriteBehind::wait_for(std::uint64_t seq) {
  std::unique_lock lock(mutex_);
  wait_progress(lock, seq, [&] { return failed_ || done_seq_ >= seq; });
  throw_if_failed_locked();
}

void WriteBehind::wait_released(std::uint64_t seq) {
  std::unique_lock lock(mutex_);
  wait_progress(lock, seq, [&] { return failed_ || done_seq_ >= seq || released_seq_ >= seq; });
  throw_if_failed_locked();
}

void WriteBehind::release_running() {
  const std::uint64_t seq = running_seq_;
  released_seq_ = seq;
  notify_progress(seq);
}

void WriteBehind::flush() {
  std::unique_lock lock(mutex_);
  ++flushes_;
  const std::uint64_t last = next_seq_ - 1;
  wait_progress(lock, last, [&] { return failed_ || done_seq_ >= last; });
  throw_if_failed_locked();
}

std::uint64_t WriteBehind::flush_count() const {
  std::lock_guard lock(mutex_);
  return flushes_;
}

void WriteBehind::loop() {
  std::deque<Queued> batch;
  while (true) {
    {
      std::unique_lock lock(mutex_);
      while (!stopping_ && queue_.empty()) {
        writer_waiting_ = true;
        work_ready_.wait(lock);
        writer_waiting_ = false;
      }
      if (queue_.empty()) return;
      batch.swap(queue_);
    }
    while (!batch.empty()) {
      Queued& item = batch.front();
      running_seq_ = item.seq;
      std::exception_ptr error;
      try {
        item.op();
      } catch (...) {
        error = std::current_exception();
      }
      if (error) {
        log_failure(error);
        std::lock_guard lock(mutex_);
        failure_ = as_write_error(error);
        failed_ = true;
        done_seq_ = queue_.empty() ? batch.back().seq : queue_.back().seq;
        queue_.clear();
        batch.clear();
        backlog_bytes_ = 0;
        wake_seq_ = kNobodyWaits;
        progress_.notify_all();
        break;
      }
      backlog_bytes_ -= item.bytes;
      done_seq_ = item.seq;
      const std::uint64_t seq = item.seq;
      batch.pop_front();
      notify_progress(seq);
    }
  }
}

void WriteBehind::write_file(std::string path, std::string content) {
  const std::size_t bytes = content.size();
  enqueue([this, path = std::move(path), content = std::move(content)] { disk_.write_file(path, content); }, bytes);
}

void WriteBehind::make_directories(std::string path) {
  enqueue([this, path = std::move(path)] {
    if (std::error_code ec = disk_.make_directories(path)) {
      throw std::runtime_error("cannot create " + path + ": " + ec.message());
    }
  });
}

void WriteBehind::open_stage_visit(std::string stage_dir, std::int64_t visit) {
  enqueue([this, stage_dir = std::move(stage_dir), visit] { attractor::open_stage_visit(disk_, stage_dir, visit); });
}

void WriteBehind::remove_file(std::string path) {
  enqueue([this, path = std::move(path)] { disk_.remove_file(path); });
}

}  // namespace attractor
