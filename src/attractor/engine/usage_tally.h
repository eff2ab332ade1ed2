#pragma once
/// \file
/// Sums the token usage of a run from its `StageUsage` events (one per attempt of an LLM stage,
/// emitted by the codergen handler; `requests` says how many model requests that returned usage
/// it sums, 1 when absent): the engine adds the totals to its final event and checkpoint, the
/// budgets compare against them, and `attractor run` and `status` print them (docs/llm.md,
/// section "Token usage").

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

/// The model requests a `UsageTally::to_json` document counts (`llm_requests`, or `llm_calls` in
/// the documents of older runs).
std::int64_t usage_requests(const nlohmann::json& usage);

/// "154 input, 20 output (4 requests in 2 stages)": the words `attractor run`'s summary and
/// `attractor status` print for a usage document.
std::string usage_text(const nlohmann::json& usage);

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
  /// Replaces the counts with `other`'s, the names of its stages included (a resume that counted
  /// the earlier requests from `events.jsonl`).
  void restore(const UsageTally& other);
  std::int64_t input_tokens() const;
  std::int64_t output_tokens() const;
  /// Model requests that returned usage, in every attempt of every stage.
  std::int64_t requests() const;
  /// Stages (distinct node ids) that made at least one of those requests.
  std::int64_t stages() const;
  /// {"input_tokens", "output_tokens", "total_tokens", "llm_requests", "llm_stages"}, plus with
  /// prices "cost_usd" and, when some model had no price, "unpriced_models".
  nlohmann::json to_json() const;
  /// `to_json()` as it would be once one more StageUsage event with `fields` (`input_tokens`,
  /// `output_tokens`, `model`, `requests`) were counted; the tally itself is unchanged. Used for a stage that
  /// is still spending (the coding agent between its turns).
  nlohmann::json with_call(const nlohmann::json& fields) const;

 private:
  /// The `to_json` document of these counts (mutex_ held).
  nlohmann::json counts_json(std::int64_t input, std::int64_t output, std::int64_t requests, double cost,
                             const std::set<std::string>& unpriced) const;

  mutable std::mutex mutex_;
  std::int64_t input_ = 0;
  std::int64_t output_ = 0;
  std::int64_t requests_ = 0;
  std::set<std::string> stage_names_;  ///< the stages counted since the tally started or was restored
  std::int64_t restored_stages_ = 0;   ///< the stages of `restore`'s counts (their names are not kept)
  PriceTable prices_;
  double cost_ = 0;
  std::set<std::string> unpriced_;
};

}  // namespace attractor
