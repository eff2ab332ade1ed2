// Per-branch results after a parallel node (`parallel.branch.<id>.status` / `.notes`) and the
// k_of_n join, through the real binary: a branch that fails, one that times out, one that
// succeeds, and edges after the fan-in that route on them.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor {
namespace {

using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;

const std::string kGraph = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/branch_keys.dot";

nlohmann::json checkpoint_of(const std::string& run_dir) {
  return nlohmann::json::parse(slurp(run_dir + "/checkpoint.json"));
}

TEST(ParallelBranchKeysTest, EachBranchHasItsStatusAndNotesAndEdgesRouteOnThem) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult r = run_attractor({"run", kGraph, "-q", "--logs-root", run});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json cp = checkpoint_of(run);
  const nlohmann::json& ctx = cp["context"];
  EXPECT_EQ(ctx["parallel.branch.broken.status"], "fail");
  EXPECT_EQ(ctx["parallel.branch.broken.notes"], "tool exited with code 2");
  EXPECT_EQ(ctx["parallel.branch.slow.status"], "fail");
  EXPECT_EQ(ctx["parallel.branch.slow.notes"], "tool timed out after 300ms: sleep 5");
  EXPECT_EQ(ctx["parallel.branch.fine.status"], "success");
  EXPECT_EQ(ctx["parallel.success_count"], 1);
  EXPECT_EQ(ctx["parallel.failure_count"], 2);
  EXPECT_EQ(cp["node_outcomes"]["fan"]["outcome"], "success");  // k_of_n with join_k=1
  EXPECT_EQ(cp["completed_nodes"], (nlohmann::json{"start", "fan", "broken", "slow", "fine", "join", "retry_slow"}));
  EXPECT_EQ(slurp(run + "/retry_slow/attempt-1/stdout.txt"), "slow branch: tool timed out after 300ms: sleep 5\n");
}

TEST(ParallelBranchKeysTest, KOfNFailsWhenFewerBranchesSucceed) {
  ScratchDir dir;
  std::string text = slurp(kGraph);
  text.replace(text.find("join_k=1"), 8, "join_k=2");
  // Only a successful join takes the per-branch route, so the join's failure ends the run.
  const std::string condition = "condition=\"context.";
  text.replace(text.find(condition), condition.size(), "condition=\"outcome=success && context.");
  const std::string graph = dir.sub("k2.dot");
  spit(graph, text);
  ProcessResult r = run_attractor({"run", graph, "-q", "--logs-root", dir.sub("run")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("result: fail: stage `join` failed after 1 attempt and no failure route leads on: the "
                       "parallel join failed: 1 of 3 branches succeeded, join_k=2 needed\n"),
            std::string::npos)
      << r.err;
}

TEST(ParallelBranchKeysTest, KOfNWithoutAUsableJoinKIsALintError) {
  ScratchDir dir;
  std::string text = slurp(kGraph);
  text.replace(text.find(", join_k=1"), 10, ", join_k=4");
  const std::string graph = dir.sub("k4.dot");
  spit(graph, text);
  ProcessResult r = run_attractor({"validate", graph});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: [join_k] parallel node 'fan' has join_policy=k_of_n but join_k='4'; it needs an integer "
                       "from 1 to 3 (its branch count)"),
            std::string::npos)
      << r.err;
  EXPECT_NE((r.out + r.err).find("set join_k=N with 1 <= N <= 3 on 'fan'"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace attractor
