#pragma once
/// \file
/// Engine events (spec §9.6) and their observers. Every event is `{"event": Name, "ts": ISO time,
/// ...fields}`; names are the spec's (PipelineStarted, StageStarted, StageCompleted, StageFailed,
/// StageRetrying, ParallelStarted, ParallelBranchStarted, ParallelBranchCompleted,
/// ParallelCompleted, InterviewStarted, InterviewCompleted, InterviewTimeout, CheckpointSaved,
/// PipelineCompleted, PipelineFailed) plus PipelineInterrupted and PipelineRestarted.
/// Observers get events when the engine decides them; the run directory's writer may still be
/// writing the files they describe (CheckpointSaved: the checkpoint is queued behind its files).

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/run/write_behind.h"

namespace attractor {

struct Event {
  std::string name;
  std::int64_t timestamp_ms = 0;
  nlohmann::json fields = nlohmann::json::object();

  /// {"event": name, "ts": ISO-8601, ...fields}
  nlohmann::json to_json() const;
  /// `to_json()` serialized on one line (keys sorted, invalid UTF-8 replaced) plus '\n', written
  /// without building the merged object.
  std::string to_json_line() const;
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

/// Appends one JSON line per event to a file (the run's `events.jsonl`). Each line is flushed at
/// once, except StageUsage and StageCompleted, which go out with the next event (a checkpoint, the
/// next stage, a branch end) or when the observer is destroyed; a process killed between the two
/// loses only lines of a stage the checkpoint does not record as completed.
class JsonlFileObserver : public EventObserver {
 public:
  /// With a `writer`, the file is opened on the writer's disk and lines are appended by the
  /// writer's operations, in order with the run's other writes (the writer must outlive this
  /// observer); without one, on the real file system, inline.
  explicit JsonlFileObserver(const std::string& path, WriteBehind* writer = nullptr);
  ~JsonlFileObserver() override;
  void on_event(const Event& event) override;

 private:
  /// Writes or queues `pending_` (mutex held); never throws.
  void write_pending();

  std::mutex mutex_;
  std::shared_ptr<AppendFile> file_;
  WriteBehind* writer_ = nullptr;
  std::string pending_;  ///< lines not yet handed to the file or the writer
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
