#include "attractor/base/budget_search.h"

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace attractor {
namespace {

/// A cost table over drop counts 0..n: entry i of `per_entry` is what dropping entry i saves.
struct Table {
  std::vector<std::size_t> cost;  ///< cost[d] = fixed + sum of the entries kept after dropping d
  std::set<std::size_t> asked;
  std::size_t evaluations = 0;

  std::size_t operator()(std::size_t d) {
    ++evaluations;
    EXPECT_TRUE(asked.insert(d).second) << "drop count " << d << " evaluated twice";
    return cost.at(d);
  }
};

Table make_table(std::size_t fixed, const std::vector<std::size_t>& per_entry) {
  Table t;
  std::size_t total = fixed;
  for (std::size_t c : per_entry) total += c;
  for (std::size_t d = 0; d <= per_entry.size(); ++d) {
    t.cost.push_back(total);
    if (d < per_entry.size()) total -= per_entry[d];
  }
  return t;
}

std::size_t linear_scan(const Table& t, std::size_t lo, std::size_t hi, std::size_t budget) {
  for (std::size_t d = lo; d <= hi; ++d) {
    if (t.cost[d] <= budget) return d;
  }
  return hi;
}

std::size_t search(Table& t, std::size_t lo, std::size_t hi, std::size_t budget, double first = 4.0) {
  return smallest_within_budget(
      lo, hi, budget, [&t](std::size_t d) { return t(d); }, first);
}

TEST(BudgetSearch, EqualsLinearScanOnRandomNonIncreasingCosts) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::size_t n = rng() % 300;
    std::vector<std::size_t> per(n);
    int shape = round % 4;
    for (std::size_t i = 0; i < n; ++i) {
      if (shape == 0) per[i] = 2 + rng() % 5;                     // stage entries
      if (shape == 1) per[i] = rng() % 3;                         // some entries save nothing
      if (shape == 2) per[i] = i < n / 2 ? 3 : 40 + rng() % 400;  // stages, then large context values
      if (shape == 3) per[i] = (rng() % 10 == 0) ? 500 : 1;
    }
    Table t = make_table(20 + rng() % 60, per);
    std::size_t lo = n ? rng() % (n / 2 + 1) : 0;
    std::size_t budget = t.cost[n] + rng() % (t.cost[lo] - t.cost[n] + 50);
    std::size_t expected = linear_scan(t, lo, n, budget);
    EXPECT_EQ(search(t, lo, n, budget), expected) << "round " << round;
    EXPECT_GE(*t.asked.begin(), lo) << "asked below lo";
  }
}

TEST(BudgetSearch, NearlyLinearCostsNeedFewCounts) {
  // 254 stage entries of 4-6 tokens and a 500-token budget, as a compact preamble late in a run.
  std::mt19937 rng(11);
  std::size_t worst = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::size_t> per(254);
    for (std::size_t& c : per) c = 4 + rng() % 3;
    Table t = make_table(40, per);
    std::size_t d = search(t, 0, 254, 500);
    EXPECT_EQ(d, linear_scan(t, 0, 254, 500));
    worst = std::max(worst, t.evaluations);
  }
  // Bisection needs 1 + log2(254) = 9 counts; interpolation a handful.
  EXPECT_LE(worst, 6u);
}

TEST(BudgetSearch, AdversarialCostsStayLogarithmic) {
  // Everything saved by the last entry: interpolation predicts badly, bisection takes over.
  std::vector<std::size_t> per(1000, 0);
  per[999] = 10000;
  for (std::size_t budget : {100u, 5000u}) {
    Table t = make_table(100, per);
    std::size_t d = search(t, 0, 1000, budget);
    EXPECT_EQ(d, linear_scan(t, 0, 1000, budget));
    EXPECT_LE(t.evaluations, 2 * 10 + 4u);
  }
}

TEST(BudgetSearch, EverythingFitsAsksTheLowerEnd) {
  Table t = make_table(10, std::vector<std::size_t>(50, 3));
  EXPECT_EQ(search(t, 5, 50, 10000), 5u);
  EXPECT_EQ(t.asked, (std::set<std::size_t>{5, 50}));
}

TEST(BudgetSearch, EmptyRangeReturnsHi) {
  Table t = make_table(10, {1, 2});
  EXPECT_EQ(search(t, 2, 2, 10), 2u);
  EXPECT_EQ(search(t, 3, 2, 10), 2u);
}

TEST(BudgetSearch, BadFirstGuessStillExact) {
  std::vector<std::size_t> per(400, 20);  // entries of 20 tokens, guessed at 4 or at 400
  for (double guess : {0.0, 4.0, 400.0}) {
    Table t = make_table(50, per);
    EXPECT_EQ(search(t, 0, 400, 3000, guess), linear_scan(t, 0, 400, 3000));
    EXPECT_LE(t.evaluations, 12u);
  }
}

}  // namespace
}  // namespace attractor
