#pragma once
/// \file
/// Sums the token usage of a run from its `StageUsage` events (one per LLM call, emitted by the
/// codergen handler): the engine adds the totals to its final event and `attractor run` prints
/// them in its summary.

#include <cstdint>
#include <mutex>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attractor/engine/events.h"

namespace attractor {

class UsageTally : public EventObserver {
 public:
  void on_event(const Event& event) override;
  /// Adds the StageUsage events of an `events.jsonl` text (a resumed run's earlier calls);
  /// lines that are not JSON objects are skipped.
  void add_events_jsonl(std::string_view jsonl);
  /// Replaces the counts with those of `to_json()` output (missing members count 0).
  void restore(const nlohmann::json& counts);
  std::int64_t input_tokens() const;
  std::int64_t output_tokens() const;
  std::int64_t calls() const;
  /// {"input_tokens", "output_tokens", "total_tokens", "llm_calls"}
  nlohmann::json to_json() const;

 private:
  mutable std::mutex mutex_;
  std::int64_t input_ = 0;
  std::int64_t output_ = 0;
  std::int64_t calls_ = 0;
};

}  // namespace attractor
