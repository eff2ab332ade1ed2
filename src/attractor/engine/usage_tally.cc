#include "attractor/engine/usage_tally.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace {

std::int64_t integer_field(const nlohmann::json& fields, const char* key) {
  if (!fields.is_object() || !fields.contains(key) || !fields[key].is_number_integer()) return 0;
  return fields[key].get<std::int64_t>();
}

}  // namespace

void UsageTally::on_event(const Event& event) {
  if (event.name != kStageUsageEvent) return;
  std::lock_guard lock(mutex_);
  input_ += integer_field(event.fields, "input_tokens");
  output_ += integer_field(event.fields, "output_tokens");
  ++calls_;
}

void UsageTally::add_events_jsonl(std::string_view jsonl) {
  while (!jsonl.empty()) {
    std::size_t end = jsonl.find('\n');
    std::string_view line = jsonl.substr(0, end);
    jsonl = end == std::string_view::npos ? std::string_view() : jsonl.substr(end + 1);
    if (line.find(kStageUsageEvent) == std::string_view::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("event", std::string()) != kStageUsageEvent) continue;
    Event e;
    e.name = kStageUsageEvent;
    e.fields = j;
    on_event(e);
  }
}

void UsageTally::restore(const nlohmann::json& counts) {
  std::lock_guard lock(mutex_);
  input_ = integer_field(counts, "input_tokens");
  output_ = integer_field(counts, "output_tokens");
  calls_ = integer_field(counts, "llm_calls");
}

std::int64_t UsageTally::input_tokens() const {
  std::lock_guard lock(mutex_);
  return input_;
}

std::int64_t UsageTally::output_tokens() const {
  std::lock_guard lock(mutex_);
  return output_;
}

std::int64_t UsageTally::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

nlohmann::json UsageTally::to_json() const {
  std::lock_guard lock(mutex_);
  return {{"input_tokens", input_}, {"output_tokens", output_}, {"total_tokens", input_ + output_}, {"llm_calls", calls_}};
}

}  // namespace attractor
