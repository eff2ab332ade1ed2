#pragma once
/// \file
/// The events of a run as Server-Sent Events read them. An event's id is its 1-based line number
/// in the run's `events.jsonl`, so a client that reconnects with `Last-Event-ID` can be given
/// exactly what it missed, from the file and then from memory.
///
/// `EventLog` observes a run this server executes: it numbers events from the count of lines the
/// file already had (a resumed run appends) and keeps the newest `capacity` in memory, so a
/// client that falls further behind than that is told to reconnect instead of holding memory or
/// the engine. `read_event_lines` serves the file for the rest.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "attractor/engine/events.h"

namespace attractor {

/// One event as the stream sends it: its id and its JSON line (without the newline).
struct StreamEvent {
  std::uint64_t id = 0;
  std::string json;
};

/// The result of `EventLog::read_after`.
struct EventBatch {
  enum class State {
    kEvents,   ///< `events` holds the next ones
    kTimeout,  ///< nothing new within the wait
    kEnded,    ///< the run is over and everything was read
    kBehind,   ///< the events after `after` are no longer in memory: read them from the file
  };
  State state = State::kTimeout;
  std::vector<StreamEvent> events;
};

class EventLog : public EventObserver {
 public:
  /// `first_id` is the id the first observed event gets (lines already in the file + 1).
  explicit EventLog(std::uint64_t first_id = 1, std::size_t capacity = 4096);

  void on_event(const Event& event) override;
  /// The run ended: readers get kEnded once they have everything.
  void close();

  /// Up to `max` events with id > `after`, waiting up to `wait` for the first.
  EventBatch read_after(std::uint64_t after, std::size_t max, std::chrono::milliseconds wait) const;

  /// The id of the oldest event still in memory (the next id when none is).
  std::uint64_t oldest_id() const;
  /// The id of the newest event (first_id - 1 before any).
  std::uint64_t last_id() const;
  bool closed() const;

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<StreamEvent> recent_;
  std::uint64_t next_id_;
  bool closed_ = false;
};

/// The complete lines of `path` numbered from 1, those with `after` < number < `before`
/// (`before` 0 = no upper bound), at most `max`. A missing file gives none; a last line without
/// its newline (being written, or torn by a crash) is left out.
std::vector<StreamEvent> read_event_lines(const std::string& path, std::uint64_t after, std::uint64_t before,
                                          std::size_t max);

/// The number of complete lines of `path` (0 when it is missing).
std::uint64_t count_event_lines(const std::string& path);

}  // namespace attractor
