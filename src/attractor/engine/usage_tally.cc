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
