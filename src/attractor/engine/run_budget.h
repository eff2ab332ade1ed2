#pragma once
/// \file
/// Run budgets: a cap on the tokens of a run's LLM calls (`max_total_tokens`) and, with a price
/// table the user supplies, on their cost (`max_cost`, US dollars). The engine checks the budget
/// before every LLM stage of the main traversal; once the usage so far has reached it, the run
/// stops there with a valid checkpoint whose next node is that stage, and `attractor resume` with
/// a higher budget continues it (docs/decisions.md, "Run budgets").

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attractor/model/graph.h"

namespace attractor {

/// US dollars per million tokens.
struct ModelPrice {
  double input = 0;
  double output = 0;
};

/// Model -> price, from a JSON object `{"MODEL": {"input": USD, "output": USD}}`; the key `*`
/// prices every model without an entry of its own.
class PriceTable {
 public:
  /// Throws std::runtime_error naming the bad entry.
  static PriceTable from_json(const nlohmann::json& json);
  bool empty() const { return prices_.empty(); }
  std::optional<ModelPrice> price_for(const std::string& model) const;

 private:
  std::map<std::string, ModelPrice> prices_;
};

struct RunBudget {
  std::optional<std::int64_t> max_total_tokens;
  std::optional<double> max_cost_usd;
  PriceTable prices;

  bool any() const { return max_total_tokens || max_cost_usd; }
  /// The budget in force: these options, else the graph attributes `max_total_tokens` and
  /// `max_cost` (prices always come from the options).
  RunBudget with_graph_defaults(const Graph& graph) const;
};

/// Why the next LLM stage `node` may not start with `usage` (UsageTally::to_json) spent, or "".
/// `when` ("before" or "during") says in the message where the stage stands.
std::string budget_reached(const RunBudget& budget, const nlohmann::json& usage, const std::string& node,
                           std::string_view when = "before");

}  // namespace attractor
