// The console progress display and the JSON event stream.

#include <cstdio>

#include <gtest/gtest.h>

#include "attractor/engine/events.h"
#include "attractor/cli/progress_display.h"

namespace attractor {
namespace {

std::string render(bool live, const std::vector<Event>& events, bool verbose = false) {
  std::FILE* f = std::tmpfile();
  ProgressDisplay display(f, live, verbose);
  for (const auto& e : events) display.on_event(e);
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[256];
  while (std::size_t n = std::fread(buf, 1, sizeof(buf), f)) out.append(buf, n);
  std::fclose(f);
  return out;
}

Event ev(const std::string& name, nlohmann::json fields) { return Event{name, 0, std::move(fields)}; }

TEST(ProgressDisplayTest, OneLinePerStageWithRetriesAndQuestions) {
  std::vector<Event> events = {
      ev("StageStarted", {{"name", "plan"}, {"attempt", 1}}),
      ev("StageFailed",
         {{"name", "plan"}, {"status", "fail"}, {"duration_ms", 1500}, {"error", "429"}, {"will_retry", true}}),
      ev("StageRetrying", {{"name", "plan"}, {"delay_ms", 200}, {"attempt", 2}}),
      ev("StageStarted", {{"name", "plan"}, {"attempt", 2}}),
      ev("StageCompleted", {{"name", "plan"}, {"status", "success"}, {"duration_ms", 65000}}),
      ev("InterviewStarted", {{"stage", "gate"}, {"question", "Ship it?"}}),
      ev("PipelineCompleted", {{"duration_ms", 70000}}),
  };
  std::string plain = render(false, events);
  EXPECT_EQ(plain,
            "  ✗ plan                     fail             1.5s  429 (will retry)\n"
            "  ↻ plan retrying in 200ms (attempt 2)\n"
            "  ✓ plan                     success          1m05s\n"
            "  ? gate asks: Ship it?\n"
            "pipeline completed in 1m10s\n");
  std::string live = render(true, {events[3], events[4]});
  EXPECT_EQ(live, "  … plan running (attempt 2)\r\033[2K  ✓ plan                     success          1m05s\n");
}

TEST(ProgressDisplayTest, AStageWhoseCommandsRanInASandboxSaysSoWithWhatWasDenied) {
  nlohmann::json confined = {{"level", "workspace"},
                             {"denied", {"touch: cannot touch '/etc/x': Read-only file system"}}};
  std::string plain = render(
      false,
      {ev("StageCompleted", {{"name", "build"}, {"status", "success"}, {"duration_ms", 20}, {"sandbox", confined}}),
       ev("StageFailed", {{"name", "deploy"},
                          {"status", "fail"},
                          {"duration_ms", 30},
                          {"error", "tool exited with code 1"},
                          {"sandbox", {{"level", "strict"}, {"denied", nlohmann::json::array()}}}}),
       ev("StageCompleted", {{"name", "fetch"},
                             {"status", "success"},
                             {"duration_ms", 40},
                             {"sandbox", {{"level", "none"}, {"denied", nlohmann::json::array()}}}})});
  EXPECT_EQ(plain,
            "  ✓ build                    success          20ms  (sandbox workspace, 1 denied)\n"
            "  ✗ deploy                   fail             30ms  tool exited with code 1  (sandbox strict)\n"
            "  ✓ fetch                    success          40ms\n");
}

TEST(ProgressDisplayTest, AWaitingStageShowsItsElapsedTimeAndAGateItsAnswer) {
  std::vector<Event> events = {
      ev("StageStarted", {{"name", "plan"}, {"attempt", 1}}),
      ev("StageWaiting", {{"name", "plan"}, {"waiting_on", "model"}, {"elapsed_ms", 30000}}),
      ev("InterviewCompleted", {{"stage", "gate"}, {"shown", "[S] Ship\x1b"}, {"answered_by", "console"}}),
  };
  EXPECT_EQ(render(false, events),
            "  … plan waiting on the model (30.0s)\n"
            "  ? gate answered: [S] Ship? (by console)\n");
  EXPECT_EQ(render(true, {events[0], events[1]}), "  … plan running\r\033[2K  … plan waiting on the model (30.0s)");
}

TEST(ProgressDisplayTest, VerboseCheckpointLinesNameTheNodesAroundThem) {
  std::vector<Event> events = {
      ev("CheckpointSaved", {{"node_id", ""}, {"next_node", "start"}}),
      ev("CheckpointSaved", {{"node_id", "start"}, {"next_node", "plan"}}),
      ev("CheckpointSaved", {{"node_id", "plan"}, {"next_node", ""}}),
  };
  EXPECT_EQ(render(false, events, true),
            "    checkpoint at the start (next: start)\n"
            "    checkpoint after start (next: plan)\n"
            "    checkpoint after plan (final)\n");
  EXPECT_EQ(render(false, events, false), "");
}

TEST(ProgressDisplayTest, AnInterruptionIsLeftToTheSummaryLine) {
  EXPECT_EQ(render(false, {ev("PipelineInterrupted", {{"node", "plan"}})}), "");
}

TEST(ProgressDisplayTest, DurationFormats) {
  EXPECT_EQ(format_duration(850), "850ms");
  EXPECT_EQ(format_duration(12345), "12.3s");
  EXPECT_EQ(format_duration(245000), "4m05s");
}

TEST(EventsTest, JsonLineShape) {
  Event e{"StageStarted", 1700000000123, {{"name", "a"}, {"index", 1}}};
  EXPECT_EQ(e.to_json().dump(), R"({"event":"StageStarted","index":1,"name":"a","ts":"2023-11-14T22:13:20.123Z"})");
  RecordingObserver rec;
  EventBus bus;
  auto shared = std::make_shared<RecordingObserver>();
  bus.add(shared);
  bus.on_event(e);
  EXPECT_EQ(shared->names(), std::vector<std::string>{"StageStarted"});
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

TEST(ProgressDisplayTest, SimulatedStagesAreMarked) {
  std::string out = render(false,
                           {
                               ev("StageUsage", {{"name", "plan"}, {"backend", "simulation"}}),
                               ev("StageCompleted", {{"name", "plan"}, {"status", "success"}, {"duration_ms", 5}}),
                               ev("StageUsage", {{"name", "code"}, {"backend", "openai"}}),
                               ev("StageCompleted", {{"name", "code"}, {"status", "success"}, {"duration_ms", 7}}),
                           });
  EXPECT_EQ(out,
            "  ✓ plan                     success          5ms  (simulated)\n"
            "  ✓ code                     success          7ms\n");
}

TEST(ProgressDisplayTest, AFailedStageShowsTheTailOfItsOutputWithoutControlCharacters) {
  std::string out = render(false, {ev("StageFailed", {{"name", "build"},
                                                      {"status", "fail"},
                                                      {"duration_ms", 12},
                                                      {"error", "tool exited with code 2"},
                                                      {"will_retry", false},
                                                      {"stderr_tail", {"make: *** [all] Error 2", "\x1b[31mred\x07"}},
                                                      {"stdout_tail", {"compiling"}}})});
  EXPECT_EQ(out,
            "  ✗ build                    fail             12ms  tool exited with code 2\n"
            "    │ make: *** [all] Error 2\n"
            "    │ ?[31mred?\n");
  std::string only_stdout = render(false, {ev("StageFailed", {{"name", "t"},
                                                              {"status", "fail"},
                                                              {"duration_ms", 1},
                                                              {"error", "tool exited with code 1"},
                                                              {"stderr_tail", nlohmann::json::array()},
                                                              {"stdout_tail", {"FAIL: test_x"}}})});
  EXPECT_EQ(only_stdout,
            "  ✗ t                        fail             1ms  tool exited with code 1\n"
            "    │ FAIL: test_x\n");
}

}  // namespace
}  // namespace attractor
