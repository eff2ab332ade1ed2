// Loop detection of the coding agent (spec §2.10): patterns of 1, 2 and 3 calls, a warning first,
// then the stop.

#include "handlers/agent/loop_detector.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

using nlohmann::json;

TEST(LoopDetectorTest, TheSameCallRepeatedIsALoop) {
  LoopDetector d(4);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(d.record("read_file", {{"path", "a"}}), LoopVerdict::kContinue);
  EXPECT_EQ(d.record("read_file", {{"path", "a"}}), LoopVerdict::kWarn);
}

TEST(LoopDetectorTest, CyclesOfTwoAndThreeAreLoops) {
  LoopDetector two(4);
  for (int i = 0; i < 3; ++i) two.record(i % 2 ? "shell" : "read_file", {{"i", i % 2}});
  EXPECT_EQ(two.record("shell", {{"i", 1}}), LoopVerdict::kWarn);
  LoopDetector three(6);
  for (int i = 0; i < 5; ++i) three.record("t" + std::to_string(i % 3), json::object());
  EXPECT_EQ(three.record("t2", json::object()), LoopVerdict::kWarn);
}

TEST(LoopDetectorTest, DifferentArgumentsAreProgress) {
  LoopDetector d(4);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(d.record("read_file", {{"path", std::to_string(i)}}), LoopVerdict::kContinue);
  EXPECT_FALSE(d.looping());
}

TEST(LoopDetectorTest, APatternThatDoesNotDivideTheWindowIsNotChecked) {
  LoopDetector d(4);
  for (int i = 0; i < 4; ++i) d.record("t" + std::to_string(i % 3), json::object());
  EXPECT_FALSE(d.looping()) << "t0 t1 t2 t0 is not a whole number of 3-call cycles";
}

TEST(LoopDetectorTest, ALoopThatGoesOnAfterTheWarningStopsTheStage) {
  LoopDetector d(3);
  d.record("shell", {{"command", "make"}});
  d.record("shell", {{"command", "make"}});
  EXPECT_EQ(d.record("shell", {{"command", "make"}}), LoopVerdict::kWarn);
  EXPECT_EQ(d.record("shell", {{"command", "make"}}), LoopVerdict::kContinue);
  EXPECT_EQ(d.record("shell", {{"command", "make"}}), LoopVerdict::kContinue);
  EXPECT_EQ(d.record("shell", {{"command", "make"}}), LoopVerdict::kStop);
}

TEST(LoopDetectorTest, TheWarningNamesTheWindow) {
  EXPECT_EQ(LoopDetector::warning_text(10).rfind("Loop detected: your last 10 tool calls", 0), 0u);
}

}  // namespace
}  // namespace attractor
