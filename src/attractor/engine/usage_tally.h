#pragma once
/// \file
/// Sums the token usage of a run from its `StageUsage` events (one per LLM call, emitted by the
/// codergen handler): the engine adds the totals to its final event and `attractor run` prints
/// them in its summary.

#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attractor/engine/events.h"
#include "attractor/engine/run_budget.h"

namespace attractor {

class UsageTally : public EventObserver {
 public:
  /// Prices the calls counted from now on (and makes `to_json` report `cost_usd`).
  void set_prices(PriceTable prices);
  /// The cost in US dollars of one StageUsage event's tokens; nullopt without a price for its model.
  std::optional<double> cost_of(const nlohmann::json& usage_fields) const;
  void on_event(const Event& event) override;
  /// Adds the StageUsage events of an `events.jsonl` text (a resumed run's earlier calls);
  /// lines that are not JSON objects are skipped.
  void add_events_jsonl(std::string_view jsonl);
  /// Replaces the counts with those of `to_json()` output (missing members count 0).
  void restore(const nlohmann::json& counts);
  std::int64_t input_tokens() const;
  std::int64_t output_tokens() const;
  std::int64_t calls() const;
  /// {"input_tokens", "output_tokens", "total_tokens", "llm_calls"}, plus with prices "cost_usd"
  /// and, when some model had no price, "unpriced_models".
  nlohmann::json to_json() const;
  /// `to_json()` as it would be once one more StageUsage event with `fields` (`input_tokens`,
  /// `output_tokens`, `model`) were counted; the tally itself is unchanged. Used for a stage that
  /// is still spending (the coding agent between its turns).
  nlohmann::json with_call(const nlohmann::json& fields) const;

 private:
  /// The `to_json` document of these counts (mutex_ held).
  nlohmann::json counts_json(std::int64_t input, std::int64_t output, std::int64_t calls, double cost,
                             const std::set<std::string>& unpriced) const;

  mutable std::mutex mutex_;
  std::int64_t input_ = 0;
  std::int64_t output_ = 0;
  std::int64_t calls_ = 0;
  PriceTable prices_;
  double cost_ = 0;
  std::set<std::string> unpriced_;
};

}  // namespace attractor
