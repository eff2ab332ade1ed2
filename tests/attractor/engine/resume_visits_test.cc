// A resume adopts earlier visits that a run directory of an older build kept inside the stage
// folder, for the graph's own nodes only: a checkpoint key that is not a node id never becomes a
// path the engine renames.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/engine/engine.h"
#include "attractor/run/checkpoint.h"
#include "support/memory_run_disk.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

using testing::TestRun;

TEST(ResumeVisitsTest, NestedVisitsOfGraphNodesAreAdoptedAndOtherCheckpointKeysAreNotPaths) {
  const Graph graph = testing::linear_graph({"a", "b"});
  TestRun t;
  MemoryRunDisk disk;
  t.disk = &disk;
  ASSERT_EQ(t.run(graph).outcome.status, StageStatus::kSuccess);
  const std::string run = t.run_dir();
  Checkpoint cp = load_checkpoint(run, disk);
  cp.visit_counts["a"] = 2;
  cp.visit_counts["../outside"] = 2;
  save_checkpoint(cp, run, disk);
  disk.remove_file(run + "/checkpoint.journal");
  ASSERT_FALSE(disk.make_directories(run + "/a/visits/1"));
  disk.write_file(run + "/a/visits/1/prompt.md", "visit 1");
  ASSERT_FALSE(disk.make_directories(run + "/../outside/visits/1"));
  disk.write_file(run + "/../outside/visits/1/keep.txt", "not the run's");

  t.resume(graph);
  EXPECT_EQ(disk.read_file(run + "/a.visits/1/prompt.md"), "visit 1");
  EXPECT_FALSE(disk.exists(run + "/a/visits"));
  EXPECT_EQ(disk.read_file(run + "/../outside/visits/1/keep.txt"), "not the run's");
  EXPECT_FALSE(disk.exists(run + "/../outside.visits"));
}

}  // namespace
}  // namespace attractor
