#include "attractor/engine/stage_heartbeats.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace attractor {
namespace {

using namespace std::chrono_literals;

TEST(StageHeartbeatsTest, EveryRegisteredBeatIsCalledUntilItsHandleGoes) {
  StageHeartbeats beats(10);
  std::atomic<int> first{0}, second{0};
  auto a = beats.start([&] { ++first; });
  auto b = beats.start([&] { ++second; });
  for (int i = 0; i < 500 && (first < 3 || second < 3); ++i) std::this_thread::sleep_for(2ms);
  EXPECT_GE(first.load(), 3);
  EXPECT_GE(second.load(), 3);
  a.reset();
  const int stopped_at = first.load();
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(first.load(), stopped_at);
  EXPECT_GT(second.load(), 3);
}

TEST(StageHeartbeatsTest, ADroppedHandleWaitsForItsBeatInProgress) {
  StageHeartbeats beats(1);
  std::atomic<bool> inside{false}, finished{false};
  auto handle = beats.start([&] {
    inside = true;
    std::this_thread::sleep_for(30ms);
    finished = true;
  });
  for (int i = 0; i < 500 && !inside; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(inside.load());
  handle.reset();
  EXPECT_TRUE(finished.load());
}

TEST(StageHeartbeatsTest, NoBeatBeforeItsFirstInterval) {
  StageHeartbeats beats(10'000);
  std::atomic<int> calls{0};
  auto handle = beats.start([&] { ++calls; });
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
}  // namespace attractor
