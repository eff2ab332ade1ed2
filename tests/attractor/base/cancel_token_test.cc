#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "attractor/base/clock.h"

namespace attractor {
namespace {

/// Cancels `token` from another thread once the waiter has had time to block.
std::thread cancel_later(const CancelToken& token) {
  return std::thread([token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    token.cancel();
  });
}

TEST(CancelTokenTest, AWaitWithNoTimeoutEndsWhenTheTokenIsCancelled) {
  CancelToken token;
  std::thread canceller = cancel_later(token);
  EXPECT_FALSE(wait_readable(-1, -1, token));
  canceller.join();
  EXPECT_TRUE(token.cancelled());
}

TEST(CancelTokenTest, CancellingTheParentWakesAWaiterOnAChild) {
  CancelToken parent;
  CancelToken child = parent.child().child();
  std::thread canceller = cancel_later(parent);
  EXPECT_FALSE(wait_readable(-1, -1, child));
  canceller.join();
}

TEST(CancelTokenTest, ACancelBeforeTheWaitReturnsAtOnce) {
  CancelToken token;
  token.cancel();
  int fds[CancelToken::kMaxWakeFds];
  ASSERT_EQ(token.wake_fds(fds), 1u);
  EXPECT_FALSE(wait_readable(-1, -1, token));
}

TEST(CancelTokenTest, AReadableDescriptorEndsTheWaitWithTrue) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ASSERT_EQ(::write(p[1], "x", 1), 1);
  CancelToken token;
  EXPECT_TRUE(wait_readable(p[0], -1, token));
  ::close(p[0]);
  ::close(p[1]);
}

TEST(CancelTokenTest, AChildCancelledAloneLeavesItsParentRunning) {
  CancelToken parent;
  CancelToken child = parent.child();
  child.cancel();
  EXPECT_TRUE(child.cancelled());
  EXPECT_FALSE(parent.cancelled());
  EXPECT_FALSE(wait_readable(-1, 0, parent));
}

TEST(CancelTokenTest, ASystemClockSleepOfAnHourEndsWhenCancelled) {
  CancelToken token;
  std::thread canceller = cancel_later(token);
  EXPECT_FALSE(system_clock().sleep_ms(3'600'000, token));
  canceller.join();
}

}  // namespace
}  // namespace attractor
