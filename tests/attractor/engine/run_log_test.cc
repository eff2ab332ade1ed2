// run.log: the operators' log a run writes next to its checkpoint (docs/run-directory.md, 2.4).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include <gtest/gtest.h>

#include "attractor/base/log.h"
#include "attractor/engine/engine.h"
#include "handlers/registry.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

/// The lines of a run's run.log without their timestamps (`[info] message`).
std::vector<std::string> log_messages(const std::string& run_dir) {
  std::ifstream in(fs::path(run_dir) / "run.log");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line.substr(line.find(' ') + 1));
  return out;
}

/// Cancels the run the first time it executes (the stage then counts as not run).
class StopOnce : public Handler {
 public:
  StopOnce(CancelToken& cancel, bool& stop) : cancel_(cancel), stop_(stop) {}
  Outcome execute(const NodeData&, Context&, const Graph&, const StageEnv&) override {
    if (std::exchange(stop_, false)) cancel_.cancel();
    return Outcome::success();
  }

 private:
  CancelToken& cancel_;
  bool& stop_;
};

TEST(RunLogTest, ARunLogsItsStartItsStagesAndItsEnd) {
  Graph g = testing::linear_graph({"a", "b"});
  testing::TestRun t;
  RunResult r = t.run(g);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  const std::string id = r.checkpoint.run_id;
  EXPECT_EQ(log_messages(t.run_dir()),
            (std::vector<std::string>{
                "[info] run " + id + " started: pipeline linear, run directory " + t.run_dir(),
                "[info] stage start started: attempt 1 of 1, type start",
                "[info] stage start finished: success in 0ms",
                "[info] stage a started: attempt 1 of 1, type codergen",
                "[info] stage a finished: success in 0ms",
                "[info] stage b started: attempt 1 of 1, type codergen",
                "[info] stage b finished: success in 0ms",
                "[info] run " + id + " finished: success in 0ms",
            }));
}

TEST(RunLogTest, ARetryIsLoggedWithItsReasonAndDelay) {
  Graph g = testing::linear_graph({"flaky"});
  g.node("flaky")->set("max_retries", "2");
  g.node("flaky")->set("simulate.outcome", "fail,success");
  testing::TestRun t;
  ASSERT_EQ(t.run(g).outcome.status, StageStatus::kSuccess);
  std::vector<std::string> lines = log_messages(t.run_dir());
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "[info] stage flaky attempt 1 of 3 failed in 0ms: simulated fail; retrying in 200ms"),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "[info] stage flaky started: attempt 2 of 3, type codergen"),
            lines.end());
}

TEST(RunLogTest, AFailedStageIsLoggedWithItsAttempts) {
  Graph g = testing::linear_graph({"bad"});
  g.node("bad")->set("max_retries", "1");
  g.node("bad")->set("simulate.outcome", "fail");
  testing::TestRun t;
  RunResult r = t.run(g);
  ASSERT_EQ(r.outcome.status, StageStatus::kFail);
  std::vector<std::string> lines = log_messages(t.run_dir());
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[lines.size() - 2], "[info] stage bad finished: fail in 0ms after 2 attempts: simulated fail");
  EXPECT_EQ(
      lines.back(),
      "[info] run " + r.checkpoint.run_id +
          " failed after 200ms: stage `bad` failed after 2 attempts and no failure route leads on: simulated fail");
}

TEST(RunLogTest, AResumeAppendsToTheLog) {
  Graph g = testing::linear_graph({"a"});
  testing::TestRun t;
  RunResult first = t.run(g);
  ASSERT_EQ(first.outcome.status, StageStatus::kSuccess);
  const std::size_t before = log_messages(t.run_dir()).size();
  t.resume(g);
  std::vector<std::string> lines = log_messages(t.run_dir());
  ASSERT_EQ(lines.size(), before + 1);
  EXPECT_EQ(lines.back(),
            "[info] run " + first.checkpoint.run_id + " resumed: already finished (success), nothing to do");
}

TEST(RunLogTest, AnInterruptedRunAndItsResumeShareTheLog) {
  Graph g = testing::linear_graph({"a", "b"});
  g.node("b")->set("type", "stop_once");
  testing::TestRun t;
  bool stop = true;
  HandlerRegistry registry = make_default_registry();
  registry.register_handler("stop_once", std::make_shared<StopOnce>(t.cancel, stop));
  RunResult first = t.run(g, registry);
  ASSERT_TRUE(first.interrupted);
  t.cancel = CancelToken();
  ASSERT_EQ(t.resume(g, registry).outcome.status, StageStatus::kSuccess);
  const std::string id = first.checkpoint.run_id;
  std::vector<std::string> lines = log_messages(t.run_dir());
  auto at = [&](const std::string& line) { return std::find(lines.begin(), lines.end(), line) - lines.begin(); };
  const auto interrupted = at("[info] run " + id + " interrupted; next node b");
  const auto resumed = at("[info] run " + id + " resumed at node b: pipeline linear, run directory " + t.run_dir());
  const auto finished = at("[info] run " + id + " finished: success in 0ms");
  EXPECT_LT(interrupted, resumed);
  EXPECT_LT(resumed, finished);
  EXPECT_LT(finished, static_cast<std::ptrdiff_t>(lines.size()));
}

TEST(RunLogTest, TheLogCanBeLeftOut) {
  Graph g = testing::linear_graph({"a"});
  testing::TestRun t;
  t.write_run_log = false;
  ASSERT_EQ(t.run(g).outcome.status, StageStatus::kSuccess);
  EXPECT_FALSE(fs::exists(t.run_dir() + "/run.log"));
}

TEST(RunLogTest, TheLogIsDetachedWhenTheRunEnds) {
  Graph g = testing::linear_graph({"a"});
  testing::TestRun t;
  ASSERT_EQ(t.run(g).outcome.status, StageStatus::kSuccess);
  const std::size_t lines = log_messages(t.run_dir()).size();
  log().warn("logged after the run");
  EXPECT_EQ(log_messages(t.run_dir()).size(), lines);
}

}  // namespace
}  // namespace attractor
