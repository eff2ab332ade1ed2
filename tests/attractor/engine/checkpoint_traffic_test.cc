// How much a long run writes for its checkpoint: the journal keeps the bytes per stage flat, so
// whole snapshots must stay rare (docs/run-directory.md §2.2.1) as the run grows.
#include <string>

#include <gtest/gtest.h>

#include "attractor/engine/engine.h"
#include "support/memory_run_disk.h"
#include "support/checkpoint_hook_disk.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

Graph long_linear_graph(int stages) {
  Graph g;
  testing::node(g, "start", {{"shape", "Mdiamond"}});
  testing::node(g, "exit", {{"shape", "Msquare"}});
  std::string previous = "start";
  for (int i = 1; i <= stages; ++i) {
    const std::string id = "n" + std::to_string(i);
    testing::node(g, id, {});
    g.node(id)->set("prompt", "step " + std::to_string(i));
    testing::edge(g, previous, id);
    previous = id;
  }
  testing::edge(g, previous, "exit");
  return g;
}

/// Snapshots that replaced a journal during a simulated linear run of `stages` stages.
std::int64_t compactions_in_run_of(int stages) {
  MemoryRunDisk memory;
  testing::CheckpointHookDisk disk(memory);
  std::int64_t compactions = 0;
  disk.before_journal_emptied = [&compactions](std::int64_t) { ++compactions; };
  testing::TestRun t;
  t.disk = &disk;
  t.write_run_log = false;
  t.max_node_executions = 1000000;
  RunResult r = t.run(long_linear_graph(stages));
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  return compactions;
}

TEST(CheckpointTrafficTest, SnapshotsGrowWithTheLogarithmOfTheRunNotItsLength) {
  // A snapshot is due once the journal outgrows both 64 KiB and the last snapshot: a few every
  // 64 KiB of records, then a geometric series (13 in 1,000 stages, 28 in 4,000 here). A context
  // change log that lost the writer's place now and then added more, and more the longer the run
  // (17 and 40; 133 in a 20,000-stage run of bench/engine).
  const std::int64_t short_run = compactions_in_run_of(1000);
  const std::int64_t long_run = compactions_in_run_of(4000);
  EXPECT_LE(short_run, 14);
  EXPECT_LE(long_run, 30) << short_run;
}

}  // namespace
}  // namespace attractor
