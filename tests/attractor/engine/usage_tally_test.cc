// The run's usage tally (every request of every attempt, and the stages that made them), its
// wording, and the look-ahead the coding agent's budget check uses.

#include "attractor/engine/usage_tally.h"

#include <gtest/gtest.h>

#include "attractor/engine/event_names.h"

namespace attractor {
namespace {

using nlohmann::json;

Event usage_event(const std::string& model, std::int64_t in, std::int64_t out) {
  Event e;
  e.name = kStageUsageEvent;
  e.fields = {{"model", model}, {"input_tokens", in}, {"output_tokens", out}};
  return e;
}

Event stage_event(const std::string& node, std::int64_t requests, std::int64_t in) {
  Event e = usage_event("m", in, 1);
  e.fields["name"] = node;
  e.fields["requests"] = requests;
  return e;
}

TEST(UsageTallyTest, CountsEveryRequestOfEveryAttemptAndTheStagesThatMadeThem) {
  UsageTally tally;
  tally.on_event(stage_event("plan", 1, 10));
  tally.on_event(stage_event("fix", 3, 100));  // an attempt of three agent turns
  tally.on_event(stage_event("fix", 2, 50));   // its retry
  tally.on_event(stage_event("gate", 0, 0));   // an attempt whose requests returned nothing
  Event older = usage_event("m", 5, 1);        // written before `requests`: one request
  older.fields["name"] = "old";
  tally.on_event(older);
  EXPECT_EQ(tally.requests(), 7);
  EXPECT_EQ(tally.stages(), 3);
  const json j = tally.to_json();
  EXPECT_EQ(j["llm_requests"], 7);
  EXPECT_EQ(j["llm_stages"], 3);
  EXPECT_EQ(j["input_tokens"], 165);
  EXPECT_EQ(usage_text(j), "165 input, 5 output (7 requests in 3 stages)");
}

TEST(UsageTallyTest, RestoresItsOwnCountsAndThoseOfOlderCheckpoints) {
  UsageTally tally;
  tally.restore({{"input_tokens", 9}, {"output_tokens", 2}, {"llm_requests", 4}, {"llm_stages", 2}});
  tally.on_event(stage_event("next", 1, 1));
  EXPECT_EQ(usage_text(tally.to_json()), "10 input, 3 output (5 requests in 3 stages)");
  const json older = {{"input_tokens", 1}, {"output_tokens", 1}, {"llm_calls", 1}};
  EXPECT_EQ(usage_requests(older), 1);
  EXPECT_EQ(usage_text(older), "1 input, 1 output (1 request in 1 stage)");
  tally.restore(older);
  EXPECT_EQ(tally.requests(), 1);
}

TEST(UsageTallyTest, WithCallCountsOneMoreCallWithoutRecordingIt) {
  UsageTally tally;
  tally.set_prices(PriceTable::from_json({{"m", {{"input", 2.0}, {"output", 10.0}}}}));
  tally.on_event(usage_event("m", 1000, 100));
  const json before = tally.to_json();
  const json ahead = tally.with_call({{"model", "m"}, {"input_tokens", 500}, {"output_tokens", 50}});
  EXPECT_EQ(ahead["input_tokens"], 1500);
  EXPECT_EQ(ahead["output_tokens"], 150);
  EXPECT_EQ(ahead["total_tokens"], 1650);
  EXPECT_EQ(ahead["llm_requests"], 2);
  EXPECT_DOUBLE_EQ(ahead["cost_usd"].get<double>(), (1500 * 2.0 + 150 * 10.0) / 1e6);
  EXPECT_EQ(tally.to_json(), before) << "the tally itself is unchanged";
}

TEST(UsageTallyTest, WithCallNamesAModelWithoutAPrice) {
  UsageTally tally;
  tally.set_prices(PriceTable::from_json({{"m", {{"input", 1.0}, {"output", 1.0}}}}));
  const json ahead = tally.with_call({{"model", "other"}, {"input_tokens", 1}, {"output_tokens", 1}});
  EXPECT_EQ(ahead["unpriced_models"], json::array({"other"}));
  RunBudget budget;
  budget.max_cost_usd = 5.0;
  EXPECT_EQ(budget_reached(budget, ahead, "fix", "during"),
            "cost budget cannot be kept: no price for model `other` (add it, or `*`, to the price table) during "
            "stage `fix`");
}

TEST(UsageTallyTest, WithoutPricesThereIsNoCost) {
  UsageTally tally;
  const json ahead = tally.with_call({{"model", "m"}, {"input_tokens", 3}, {"output_tokens", 4}});
  EXPECT_FALSE(ahead.contains("cost_usd"));
  RunBudget budget;
  budget.max_total_tokens = 7;
  EXPECT_EQ(budget_reached(budget, ahead, "fix", "during"),
            "token budget reached: 7 of max_total_tokens=7 used during stage `fix`");
}

}  // namespace
}  // namespace attractor
