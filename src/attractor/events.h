#pragma once
/// \file
/// Engine events (spec §9.6) and their observers. Every event is `{"event": Name, "ts": ISO time,
/// ...fields}`; names are the spec's (PipelineStarted, StageStarted, StageCompleted, StageFailed,
/// StageRetrying, ParallelStarted, ParallelBranchStarted, ParallelBranchCompleted,
/// ParallelCompleted, InterviewStarted, InterviewCompleted, InterviewTimeout, CheckpointSaved,
/// PipelineCompleted, PipelineFailed) plus PipelineInterrupted and PipelineRestarted.

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor {

struct Event {
  std::string name;
  std::int64_t timestamp_ms = 0;
  nlohmann::json fields = nlohmann::json::object();

  /// {"event": name, "ts": ISO-8601, ...fields}
  nlohmann::json to_json() const;
};

/// Receives events; implementations must tolerate calls from parallel branch threads.
class EventObserver {
 public:
  virtual ~EventObserver() = default;
  virtual void on_event(const Event& event) = 0;
};

/// Fans events out to observers in registration order, one event at a time.
class EventBus : public EventObserver {
 public:
  void add(std::shared_ptr<EventObserver> observer);
  void on_event(const Event& event) override;

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<EventObserver>> observers_;
};

/// Appends one JSON line per event to a file (the run's `events.jsonl`), flushing each line.
class JsonlFileObserver : public EventObserver {
 public:
  explicit JsonlFileObserver(const std::string& path);
  ~JsonlFileObserver() override;
  void on_event(const Event& event) override;

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

/// Writes one JSON line per event to a stream (`--json-events` uses stdout).
class JsonStreamObserver : public EventObserver {
 public:
  explicit JsonStreamObserver(std::FILE* stream) : stream_(stream) {}
  void on_event(const Event& event) override;

 private:
  std::mutex mutex_;
  std::FILE* stream_;
};

/// Keeps every event in memory (tests).
class RecordingObserver : public EventObserver {
 public:
  void on_event(const Event& event) override;
  std::vector<Event> events() const;
  /// Names in order.
  std::vector<std::string> names() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Event> events_;
};

}  // namespace attractor
