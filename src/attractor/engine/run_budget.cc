#include "attractor/engine/run_budget.h"

#include <stdexcept>

#include <fmt/format.h>

namespace attractor {

PriceTable PriceTable::from_json(const nlohmann::json& json) {
  if (!json.is_object())
    throw std::runtime_error("a price table is a JSON object: {\"MODEL\": {\"input\": USD, \"output\": USD}}");
  PriceTable table;
  for (const auto& [model, entry] : json.items()) {
    auto number = [&](const char* key) {
      auto it = entry.is_object() ? entry.find(key) : entry.end();
      if (!entry.is_object() || it == entry.end() || !it->is_number() || it->get<double>() < 0) {
        throw std::runtime_error(
            fmt::format("price of `{}`: expected {{\"input\": USD, \"output\": USD}} per million "
                        "tokens, both numbers >= 0",
                        model));
      }
      return it->get<double>();
    };
    table.prices_[model] = {number("input"), number("output")};
  }
  return table;
}

std::optional<ModelPrice> PriceTable::price_for(const std::string& model) const {
  if (auto it = prices_.find(model); it != prices_.end()) return it->second;
  if (auto it = prices_.find("*"); it != prices_.end()) return it->second;
  return std::nullopt;
}

RunBudget RunBudget::with_graph_defaults(const Graph& graph) const {
  RunBudget budget = *this;
  const GraphData& data = graph.data();
  if (!budget.max_total_tokens) {
    if (std::string text = data.get("max_total_tokens"); !text.empty()) budget.max_total_tokens = std::stoll(text);
  }
  if (!budget.max_cost_usd) {
    if (std::string text = data.get("max_cost"); !text.empty()) budget.max_cost_usd = std::stod(text);
  }
  return budget;
}

std::string budget_reached(const RunBudget& budget, const nlohmann::json& usage, const std::string& node,
                           std::string_view when) {
  const std::int64_t tokens = usage.value("total_tokens", std::int64_t{0});
  if (budget.max_total_tokens && tokens >= *budget.max_total_tokens) {
    return fmt::format("token budget reached: {} of max_total_tokens={} used {} stage `{}`", tokens,
                       *budget.max_total_tokens, when, node);
  }
  if (budget.max_cost_usd && usage.contains("unpriced_models") && !usage["unpriced_models"].empty()) {
    return fmt::format(
        "cost budget cannot be kept: no price for model `{}` (add it, or `*`, to the price table) "
        "{} stage `{}`",
        usage["unpriced_models"][0].get<std::string>(), when, node);
  }
  const double cost = usage.value("cost_usd", 0.0);
  if (budget.max_cost_usd && cost >= *budget.max_cost_usd) {
    return fmt::format("cost budget reached: ${:.4f} of max_cost=${:.4f} spent {} stage `{}`", cost,
                       *budget.max_cost_usd, when, node);
  }
  return "";
}

}  // namespace attractor
