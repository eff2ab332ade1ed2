// The short crash torture of `make test`: bench/torture/torture.sh with 10 random SIGKILLs (seed 7);
// every killed run is resumed to the end and must match an uninterrupted run. The full version
// (200 kills) is run by hand: bench/torture/torture.sh --kills 200. The same for worktree runs
// (--case worktree), whose commits and files must match too, and for rewinds and forks of them
// (--case rewind).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

/// Runs torture.sh with `extra` arguments and checks that every finished run matched.
void expect_all_identical(const std::vector<std::string>& extra) {
  std::vector<std::string> argv{"bash", "bench/torture/torture.sh", "--seed", "7", "--binary", ATTRACTOR_BINARY_PATH};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcessResult r = run_program(argv, {.timeout_seconds = 280});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("seed 7: "), std::string::npos) << r.out;
  const std::size_t identical = r.out.find("identical: ");
  ASSERT_NE(identical, std::string::npos) << r.out;
  const std::string ratio = r.out.substr(identical + 11, r.out.find('\n', identical) - identical - 11);
  const std::size_t slash = ratio.find('/');
  ASSERT_NE(slash, std::string::npos);
  EXPECT_EQ(ratio.substr(0, slash), ratio.substr(slash + 1));
}

TEST(TortureTest, TenRandomKillsEachResumedToTheUninterruptedResult) { expect_all_identical({"--kills", "10"}); }

// docs/workspace.md: killed worktree runs end with the uninterrupted run's commits and files.
TEST(TortureTest, TenRandomKillsOfWorktreeRunsEachResumedToTheUninterruptedTree) {
  expect_all_identical({"--case", "worktree", "--kills", "10"});
}

// docs/workspace.md, section 6: rewinds and forks killed anywhere end, once resumed, with the
// uninterrupted run's commits and files, and a forked original is unchanged.
TEST(TortureTest, TenRandomKillsOfRewindsAndForksEachResumedToTheUninterruptedTree) {
  expect_all_identical({"--case", "rewind", "--kills", "10"});
}

}  // namespace
}  // namespace attractor::hardening
