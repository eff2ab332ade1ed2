#include "attractor/events.h"

#include "attractor/clock.h"

namespace attractor {

nlohmann::json Event::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  j["event"] = name;
  j["ts"] = format_iso8601(timestamp_ms);
  for (auto it = fields.begin(); it != fields.end(); ++it) j[it.key()] = it.value();
  return j;
}

void EventBus::add(std::shared_ptr<EventObserver> observer) {
  std::lock_guard lock(mutex_);
  observers_.push_back(std::move(observer));
}

void EventBus::on_event(const Event& event) {
  std::lock_guard lock(mutex_);
  for (const auto& o : observers_) o->on_event(event);
}

JsonlFileObserver::JsonlFileObserver(const std::string& path) { file_ = std::fopen(path.c_str(), "a"); }

JsonlFileObserver::~JsonlFileObserver() {
  if (file_) std::fclose(file_);
}

void JsonlFileObserver::on_event(const Event& event) {
  std::lock_guard lock(mutex_);
  if (!file_) return;
  std::string line = event.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

void JsonStreamObserver::on_event(const Event& event) {
  std::lock_guard lock(mutex_);
  std::string line = event.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
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
