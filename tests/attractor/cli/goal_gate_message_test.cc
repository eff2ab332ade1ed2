// A failed goal-gate stage says it was a goal gate, on the console and in `attractor status`, so
// the reader can tell why the run could not go on past it; `status` counts one model request as
// "1 request in 1 stage". Through the real binary.

#include <string>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

TEST(GoalGateMessageTest, AFailedGoalGateSaysSoOnTheConsoleAndInStatus) {
  ScratchDir dir;
  spit(dir.sub("gate.dot"),
       "digraph gate {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n"
       "  plan [shape=box, prompt=\"plan it\"]\n"
       "  tests [shape=parallelogram, goal_gate=true, tool_command=\"exit 1\"]\n"
       "  start -> plan -> tests -> done\n}\n");
  ProcessResult r = run_attractor({"run", dir.sub("gate.dot"), "--simulate", "--logs-root", dir.sub("run")});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const std::string reason =
      "stage `tests` (a goal gate) failed after 1 attempt and no failure route leads on: tool exited with code 1";
  EXPECT_NE(r.err.find("result: fail: " + reason), std::string::npos) << r.err;
  ProcessResult status = run_attractor({"status", dir.sub("run")});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("reason:   " + reason), std::string::npos) << status.out;
  EXPECT_NE(status.out.find(" output (1 request in 1 stage)\n"), std::string::npos) << status.out;
}

}  // namespace
}  // namespace attractor::hardening
