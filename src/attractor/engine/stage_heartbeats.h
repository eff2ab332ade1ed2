#pragma once
/// \file
/// The StageWaiting signs of life of a run's waiting stages (docs/run-directory.md, events), on one
/// thread per run instead of one per stage: a stage registers a beat, called every `every_ms` of
/// real time (so a test's fake clock never spins it) until the stage drops its handle.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace attractor {

class StageHeartbeats {
 public:
  /// Unregisters its beat when destroyed, waiting for a call of it in progress to end.
  class Handle {
   public:
    Handle(StageHeartbeats& owner, std::uint64_t id) : owner_(owner), id_(id) {}
    ~Handle() { owner_.stop(id_); }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

   private:
    StageHeartbeats& owner_;
    std::uint64_t id_;
  };

  explicit StageHeartbeats(std::int64_t every_ms) : every_(every_ms) {}
  /// Stops the thread; every Handle must be gone first.
  ~StageHeartbeats();
  StageHeartbeats(const StageHeartbeats&) = delete;
  StageHeartbeats& operator=(const StageHeartbeats&) = delete;

  /// Calls `beat` every interval from now on (the thread starts with the first beat).
  std::unique_ptr<Handle> start(std::function<void()> beat);

 private:
  using Clock = std::chrono::steady_clock;
  struct Beat {
    Clock::time_point due;
    std::function<void()> call;
  };
  void stop(std::uint64_t id);
  void loop();

  std::chrono::milliseconds every_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::uint64_t, Beat> beats_;  ///< mutex_
  std::uint64_t next_id_ = 1;            ///< mutex_
  std::uint64_t running_ = 0;            ///< mutex_: the beat being called (0: none)
  bool stopping_ = false;                ///< mutex_
  std::thread thread_;
};

}  // namespace attractor
