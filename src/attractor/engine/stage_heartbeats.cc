#include "attractor/engine/stage_heartbeats.h"

#include <algorithm>

namespace attractor {

StageHeartbeats::~StageHeartbeats() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::unique_ptr<StageHeartbeats::Handle> StageHeartbeats::start(std::function<void()> beat) {
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    beats_[id] = Beat{Clock::now() + every_, std::move(beat)};
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  changed_.notify_all();
  return std::make_unique<Handle>(*this, id);
}

void StageHeartbeats::stop(std::uint64_t id) {
  std::unique_lock lock(mutex_);
  beats_.erase(id);  // never called again; a call in progress runs on a copy
  changed_.wait(lock, [&] { return running_ != id; });
  changed_.notify_all();
}

void StageHeartbeats::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (beats_.empty()) {
      changed_.wait(lock);
      continue;
    }
    auto next = std::min_element(beats_.begin(), beats_.end(),
                                 [](const auto& a, const auto& b) { return a.second.due < b.second.due; });
    // A copy: the beat may be dropped (its node freed) while this thread waits.
    const Clock::time_point due = next->second.due;
    if (Clock::now() < due) {
      changed_.wait_until(lock, due);
      continue;
    }
    const std::uint64_t id = next->first;
    std::function<void()> call = next->second.call;
    running_ = id;
    lock.unlock();
    call();
    lock.lock();
    running_ = 0;
    if (auto beat = beats_.find(id); beat != beats_.end()) beat->second.due = Clock::now() + every_;
    changed_.notify_all();
  }
}

}  // namespace attractor
