#include "retrieval/local/ordered_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace attractor::retrieval {
namespace {

TEST(OrderedPoolTest, ConsumesEveryItemInOrderWhateverOrderTheWorkersFinish) {
  const size_t n = 200;
  std::vector<int> squares(n, -1);
  std::vector<size_t> order;
  auto work = [&](size_t i) {
    if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
    squares[i] = static_cast<int>(i * i);
  };
  auto consume = [&](size_t i) {
    EXPECT_EQ(squares[i], static_cast<int>(i * i));
    order.push_back(i);
  };
  run_ordered(n, 4, 8, work, consume);
  ASSERT_EQ(order.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(order[i], i);
}

TEST(OrderedPoolTest, NeverWorksMoreThanLeadItemsAhead) {
  std::atomic<size_t> consumed{0};
  std::atomic<size_t> worst{0};
  auto work = [&](size_t i) {
    size_t ahead = i - consumed.load();
    size_t seen = worst.load();
    while (ahead > seen && !worst.compare_exchange_weak(seen, ahead)) {
    }
  };
  run_ordered(500, 3, 5, work, [&](size_t i) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    consumed = i + 1;
  });
  EXPECT_LE(worst.load(), 5u);
}

TEST(OrderedPoolTest, AWorkersExceptionSurfacesAtItsItemAfterTheEarlierOnes) {
  std::vector<size_t> order;
  auto work = [](size_t i) {
    if (i == 13) throw std::runtime_error("item 13");
  };
  try {
    run_ordered(100, 2, 4, work, [&](size_t i) { order.push_back(i); });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 13");
  }
  EXPECT_EQ(order.size(), 13u);
}

TEST(OrderedPoolTest, AConsumersExceptionStopsTheWorkers) {
  std::atomic<size_t> worked{0};
  auto consume = [](size_t i) {
    if (i == 3) throw std::runtime_error("stop");
  };
  EXPECT_THROW(run_ordered(
                   10000, 2, 4, [&](size_t) { ++worked; }, consume),
               std::runtime_error);
  EXPECT_LE(worked.load(), 3u + 1u + 4u);
}

TEST(OrderedPoolTest, NoThreadsRunsInline) {
  std::vector<size_t> order;
  std::thread::id caller = std::this_thread::get_id();
  run_ordered(
      5, 0, 1, [&](size_t) { EXPECT_EQ(std::this_thread::get_id(), caller); }, [&](size_t i) { order.push_back(i); });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace attractor::retrieval
