#include "attractor/engine/events.h"

#include "attractor/base/clock.h"
#include "attractor/base/json_text.h"
#include "attractor/engine/event_names.h"
#include "attractor/run/posix_run_disk.h"

namespace attractor {

namespace {

/// Events that are always followed by another event of the same stage soon (StageUsage by
/// StageCompleted, StageCompleted by CheckpointSaved, a branch's next StageStarted or
/// ParallelBranchCompleted): the file is flushed with that one, saving a write per event.
bool buffered_until_next_event(const std::string& name) {
  return name == kStageUsageEvent || name == kStageCompletedEvent;
}

}  // namespace

nlohmann::json Event::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  j["event"] = name;
  j["ts"] = format_iso8601(timestamp_ms);
  for (auto it = fields.begin(); it != fields.end(); ++it) j[it.key()] = it.value();
  return j;
}

std::string Event::to_json_line() const {
  std::string out = "{";
  auto key = [&out](std::string_view name) {
    if (out.size() > 1) out += ',';
    append_json_string(out, name);
    out += ':';
  };
  // The fields' keys are sorted; "event" and "ts" go in their sorted places unless a field of the
  // same name replaces them (as in to_json).
  auto own = [&](std::size_t which) {
    key(which == 0 ? "event" : "ts");
    append_json_string(out, which == 0 ? name : format_iso8601(timestamp_ms));
  };
  const std::string_view own_keys[] = {"event", "ts"};
  std::size_t next_own = 0;
  if (fields.is_object()) {
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      const std::string& field = it.key();
      for (; next_own < 2 && own_keys[next_own] <= field; ++next_own) {
        if (own_keys[next_own] != field) own(next_own);
      }
      key(field);
      append_json(out, it.value());
    }
  }
  for (; next_own < 2; ++next_own) own(next_own);
  out += "}\n";
  return out;
}

void EventBus::add(std::shared_ptr<EventObserver> observer) {
  std::lock_guard lock(mutex_);
  observers_.push_back(std::move(observer));
}

void EventBus::on_event(const Event& event) {
  std::lock_guard lock(mutex_);
  for (const auto& o : observers_) o->on_event(event);
}

JsonlFileObserver::JsonlFileObserver(const std::string& path, WriteBehind* writer)
    : file_(open_record_append(writer ? writer->disk() : posix_run_disk(), path)), writer_(writer) {}

JsonlFileObserver::~JsonlFileObserver() {
  std::lock_guard lock(mutex_);
  write_pending();
}

void JsonlFileObserver::write_pending() {
  if (!file_ || pending_.empty()) return;
  const std::size_t bytes = pending_.size();
  auto append = [file = file_, lines = std::move(pending_)] { file->append(lines); };
  pending_.clear();
  if (!writer_) {
    append();
    return;
  }
  try {
    writer_->enqueue(std::move(append), bytes);
  } catch (const std::exception&) {
    // The writer failed; the engine reports that error at its next write, and observers never
    // throw (events are emitted from branch threads and cleanup paths).
  }
}

void JsonlFileObserver::on_event(const Event& event) {
  std::lock_guard lock(mutex_);
  if (!file_) return;
  pending_ += event.to_json_line();
  if (!buffered_until_next_event(event.name)) write_pending();
}

void JsonStreamObserver::on_event(const Event& event) {
  std::lock_guard lock(mutex_);
  std::string line = event.to_json_line();
  std::fwrite(line.data(), 1, line.size(), stream_);
  std::fflush(stream_);
}

void RecordingObserver::on_event(const Event& event) {
  std::lock_guard lock(mutex_);
  events_.push_back(event);
}

std::vector<Event> RecordingObserver::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

std::vector<std::string> RecordingObserver::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& e : events_) out.push_back(e.name);
  return out;
}

}  // namespace attractor
