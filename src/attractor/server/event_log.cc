#include "attractor/server/event_log.h"

#include <fstream>

namespace attractor {

EventLog::EventLog(std::uint64_t first_id, std::size_t capacity)
    : capacity_(capacity == 0 ? 1 : capacity), next_id_(first_id == 0 ? 1 : first_id) {}

void EventLog::on_event(const Event& event) {
  std::string line = event.to_json_line();
  if (!line.empty() && line.back() == '\n') line.pop_back();
  {
    std::lock_guard lock(mutex_);
    recent_.push_back({next_id_++, std::move(line)});
    if (recent_.size() > capacity_) recent_.pop_front();
  }
  changed_.notify_all();
}

void EventLog::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

EventBatch EventLog::read_after(std::uint64_t after, std::size_t max, std::chrono::milliseconds wait) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, wait, [&] { return closed_ || next_id_ - 1 > after; });
  EventBatch batch;
  const std::uint64_t oldest = recent_.empty() ? next_id_ : recent_.front().id;
  if (after + 1 < oldest) {
    batch.state = EventBatch::State::kBehind;
    return batch;
  }
  for (std::size_t i = static_cast<std::size_t>(after + 1 - oldest); i < recent_.size() && batch.events.size() < max;
       ++i) {
    batch.events.push_back(recent_[i]);
  }
  if (!batch.events.empty()) {
    batch.state = EventBatch::State::kEvents;
  } else {
    batch.state = closed_ ? EventBatch::State::kEnded : EventBatch::State::kTimeout;
  }
  return batch;
}

std::uint64_t EventLog::oldest_id() const {
  std::lock_guard lock(mutex_);
  return recent_.empty() ? next_id_ : recent_.front().id;
}

std::uint64_t EventLog::last_id() const {
  std::lock_guard lock(mutex_);
  return next_id_ - 1;
}

bool EventLog::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

std::vector<StreamEvent> read_event_lines(const std::string& path, std::uint64_t after, std::uint64_t before,
                                          std::size_t max) {
  std::vector<StreamEvent> out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::string line;
  std::uint64_t number = 0;
  while (out.size() < max && std::getline(in, line)) {
    if (in.eof()) break;  // no newline after it: not complete yet
    ++number;
    if (before != 0 && number >= before) break;
    if (number > after) out.push_back({number, line});
  }
  return out;
}

std::uint64_t count_event_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  std::uint64_t lines = 0;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) lines += buffer[i] == '\n';
  }
  return lines;
}

}  // namespace attractor
