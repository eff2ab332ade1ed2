#include "attractor/engine/usage_tally.h"
#include "attractor/base/json_limits.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace {

std::int64_t integer_field(const nlohmann::json& fields, const char* key) {
  if (!fields.is_object() || !fields.contains(key) || !fields[key].is_number_integer()) return 0;
  return fields[key].get<std::int64_t>();
}

/// The requests a StageUsage event sums: its `requests`, or 1 for an event written before the
/// member existed (one event per call then).
std::int64_t usage_event_requests(const nlohmann::json& fields) {
  return fields.is_object() && fields.contains("requests") ? integer_field(fields, "requests") : 1;
}

/// "1 request", "2 stages".
std::string usage_noun(std::int64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

std::int64_t usage_requests(const nlohmann::json& usage) {
  return integer_field(usage, usage.is_object() && usage.contains("llm_requests") ? "llm_requests" : "llm_calls");
}

std::string usage_text(const nlohmann::json& usage) {
  const bool legacy = usage.is_object() && !usage.contains("llm_stages");
  const std::int64_t stages = legacy ? usage_requests(usage) : integer_field(usage, "llm_stages");
  return std::to_string(integer_field(usage, "input_tokens")) + " input, " +
         std::to_string(integer_field(usage, "output_tokens")) + " output (" +
         usage_noun(usage_requests(usage), "request") + " in " + usage_noun(stages, "stage") + ")";
}

void UsageTally::set_prices(PriceTable prices) {
  std::lock_guard lock(mutex_);
  prices_ = std::move(prices);
}

std::optional<double> UsageTally::cost_of(const nlohmann::json& fields) const {
  std::optional<ModelPrice> price = prices_.price_for(fields.value("model", std::string()));
  if (!price) return std::nullopt;
  return (static_cast<double>(integer_field(fields, "input_tokens")) * price->input +
          static_cast<double>(integer_field(fields, "output_tokens")) * price->output) /
         1e6;
}

void UsageTally::on_event(const Event& event) {
  if (event.name != kStageUsageEvent) return;
  std::lock_guard lock(mutex_);
  input_ += integer_field(event.fields, "input_tokens");
  output_ += integer_field(event.fields, "output_tokens");
  const std::int64_t requests = usage_event_requests(event.fields);
  requests_ += requests;
  if (requests > 0) stage_names_.insert(event.fields.value("name", std::string()));
  if (prices_.empty()) return;
  if (std::optional<double> cost = cost_of(event.fields)) {
    cost_ += *cost;
  } else {
    unpriced_.insert(event.fields.value("model", std::string()));
  }
}

void UsageTally::add_events_jsonl(std::string_view jsonl) {
  while (!jsonl.empty()) {
    std::size_t end = jsonl.find('\n');
    std::string_view line = jsonl.substr(0, end);
    jsonl = end == std::string_view::npos ? std::string_view() : jsonl.substr(end + 1);
    if (line.find(kStageUsageEvent) == std::string_view::npos) continue;
    nlohmann::json j = parse_json_or_discarded(line);
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
  // Checkpoints written before `llm_requests` counted one call per stage attempt as `llm_calls`.
  const bool legacy = counts.is_object() && !counts.contains("llm_requests");
  requests_ = integer_field(counts, legacy ? "llm_calls" : "llm_requests");
  restored_stages_ = legacy ? requests_ : integer_field(counts, "llm_stages");
  stage_names_.clear();
  cost_ = counts.is_object() && counts.contains("cost_usd") && counts["cost_usd"].is_number()
              ? counts["cost_usd"].get<double>()
              : 0.0;
  unpriced_.clear();
  if (counts.is_object() && counts.contains("unpriced_models") && counts["unpriced_models"].is_array()) {
    for (const auto& m : counts["unpriced_models"]) {
      if (m.is_string()) unpriced_.insert(m.get<std::string>());
    }
  }
}

void UsageTally::restore(const UsageTally& other) {
  if (&other == this) return;
  std::scoped_lock lock(mutex_, other.mutex_);
  input_ = other.input_;
  output_ = other.output_;
  requests_ = other.requests_;
  stage_names_ = other.stage_names_;
  restored_stages_ = other.restored_stages_;
  cost_ = other.cost_;
  unpriced_ = other.unpriced_;
}

std::int64_t UsageTally::input_tokens() const {
  std::lock_guard lock(mutex_);
  return input_;
}

std::int64_t UsageTally::output_tokens() const {
  std::lock_guard lock(mutex_);
  return output_;
}

std::int64_t UsageTally::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::int64_t UsageTally::stages() const {
  std::lock_guard lock(mutex_);
  return restored_stages_ + static_cast<std::int64_t>(stage_names_.size());
}

nlohmann::json UsageTally::to_json() const {
  std::lock_guard lock(mutex_);
  return counts_json(input_, output_, requests_, cost_, unpriced_);
}

nlohmann::json UsageTally::counts_json(std::int64_t input, std::int64_t output, std::int64_t requests, double cost,
                                       const std::set<std::string>& unpriced) const {
  nlohmann::json j = {{"input_tokens", input},
                      {"output_tokens", output},
                      {"total_tokens", input + output},
                      {"llm_requests", requests},
                      {"llm_stages", restored_stages_ + static_cast<std::int64_t>(stage_names_.size())}};
  if (!prices_.empty()) j["cost_usd"] = cost;
  if (!unpriced.empty()) j["unpriced_models"] = unpriced;
  return j;
}

nlohmann::json UsageTally::with_call(const nlohmann::json& fields) const {
  std::lock_guard lock(mutex_);
  double cost = cost_;
  std::set<std::string> unpriced = unpriced_;
  if (!prices_.empty()) {
    if (std::optional<double> c = cost_of(fields)) {
      cost += *c;
    } else {
      unpriced.insert(fields.value("model", std::string()));
    }
  }
  return counts_json(input_ + integer_field(fields, "input_tokens"), output_ + integer_field(fields, "output_tokens"),
                     requests_ + usage_event_requests(fields), cost, unpriced);
}

}  // namespace attractor
