// Human gates a person can recover from, through the real binary: a gate nobody can ask (no
// terminal, end of input, an answers file without an answer for it) stops the run as interrupted
// (exit 130) with its checkpoint before the gate, and `resume` asks again; the console says which
// option a gate took and who chose it (docs/decisions.md, "Gates a person can recover from").

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/cli_test_support.h"
#include "support/engine_test_support.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

using testing::read_checkpoint;
using testing::TempDir;

const std::string kHumanGraph = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/human.dot";

constexpr char kClosedInput[] =
    "stopped: human gate `review` could not ask: standard input ended before an answer (no terminal to ask on)\n";

/// `attractor run` of the one-gate pipeline into `run_dir`, standard input from /dev/null.
hardening::ProcessResult run_without_terminal(const std::string& run_dir, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"run", kHumanGraph, "--simulate", "--logs-root", run_dir};
  args.insert(args.end(), extra.begin(), extra.end());
  return hardening::run_attractor(args);
}

TEST(GateRecoveryTest, AGateWithoutATerminalInterruptsTheRunAndResumeWithAutoApproveAnswersIt) {
  TempDir dir;
  const std::string run_dir = dir.sub("run");
  hardening::ProcessResult stopped = run_without_terminal(run_dir);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_NE(stopped.err.find(kClosedInput), std::string::npos) << stopped.err;
  EXPECT_NE(stopped.err.find("interrupted; the checkpoint is intact: attractor resume " + run_dir +
                             " (on a terminal, or with --auto-approve or --answers FILE, to answer the gate)\n"),
            std::string::npos)
      << stopped.err;
  EXPECT_EQ(stopped.err.find("human skipped interaction"), std::string::npos) << stopped.err;
  EXPECT_EQ(stopped.err.find("✗ review"), std::string::npos) << stopped.err;  // not a failed stage
  nlohmann::json checkpoint = read_checkpoint(run_dir);
  EXPECT_EQ(checkpoint["completed_nodes"], nlohmann::json{"start"});
  EXPECT_EQ(checkpoint["next_node"], "review");

  hardening::ProcessResult resumed = hardening::run_attractor({"resume", run_dir, "--auto-approve"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("  ? review answered: [S] Ship (by auto-approve)\n"), std::string::npos) << resumed.err;
  EXPECT_EQ(read_checkpoint(run_dir)["completed_nodes"], (nlohmann::json{"start", "review", "ship"}));
}

TEST(GateRecoveryTest, AResumeOnATerminalAsksAgainAndTheConsoleSaysWhoAnswered) {
  TempDir dir;
  const std::string run_dir = dir.sub("run");
  ASSERT_EQ(run_without_terminal(run_dir).exit_code, 130);
  testing::CommandResult resumed = testing::run_attractor({"resume", run_dir}, "R\n");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("[?] Ship it?  (review)"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("  ? review answered: [R] Rework (by console)\n"), std::string::npos) << resumed.err;
  EXPECT_EQ(read_checkpoint(run_dir)["completed_nodes"], (nlohmann::json{"start", "review", "rework"}));
}

TEST(GateRecoveryTest, AnAnswersFileWithoutAnAnswerForTheGateInterruptsAndAResumeWithMoreAnswersGoesOn) {
  TempDir dir;
  const std::string run_dir = dir.sub("run");
  write_text_file(dir.sub("none.json"), "[]");
  hardening::ProcessResult stopped = run_without_terminal(run_dir, {"--answers", dir.sub("none.json")});
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_NE(
      stopped.err.find("stopped: human gate `review` could not ask: the answers file has no answer left for it\n"),
      std::string::npos)
      << stopped.err;
  write_text_file(dir.sub("more.json"), R"({"review": "R"})");
  hardening::ProcessResult resumed = hardening::run_attractor({"resume", run_dir, "--answers", dir.sub("more.json")});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("  ? review answered: [R] Rework (by file)\n"), std::string::npos) << resumed.err;
}

TEST(GateRecoveryTest, AnExplicitSkipInTheAnswersFileStillFailsTheGate) {
  TempDir dir;
  write_text_file(dir.sub("skip.json"), R"({"review": "skip"})");
  hardening::ProcessResult failed = run_without_terminal(dir.sub("run"), {"--answers", dir.sub("skip.json")});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.err.find("human skipped interaction"), std::string::npos) << failed.err;
}

}  // namespace
}  // namespace attractor
