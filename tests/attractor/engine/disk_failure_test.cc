// A run-directory write that fails (a full disk, injected through EngineOptions::disk) stops the
// run with that error, which the CLI turns into exit 3, and leaves the previous checkpoint intact
// and without a temp file; resuming from it on a working disk ends like an uninterrupted run.

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/engine/engine.h"
#include "attractor/run/checkpoint_journal.h"
#include "support/memory_run_disk.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_directory.h"
#include "support/checkpoint_hook_disk.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::CheckpointHookDisk;
using testing::read_json;
using testing::TestRun;

/// The checkpoint without what differs between runs.
nlohmann::json comparable(const std::string& run_dir) {
  nlohmann::json j = read_checkpoint_document(run_dir, posix_run_disk());
  for (const char* k : {"timestamp", "timestamp_ms", "run_id", "usage", "journal_seq"}) j.erase(k);
  j["context"].erase("internal.run_id");
  return j;
}

TEST(DiskFailureTest, AFailedCheckpointWriteStopsTheRunAndKeepsThePreviousCheckpoint) {
  const Graph graph = testing::linear_graph({"a", "b", "c", "d"});
  TestRun reference;
  ASSERT_EQ(reference.run(graph).outcome.status, StageStatus::kSuccess);

  for (bool background : {true, false}) {
    SCOPED_TRACE(background);
    TestRun t;
    t.background_writes = background;
    t.checkpoint_rewrite_below = 0;
    CheckpointHookDisk disk;
    disk.fail_checkpoint = 4;  // initial, start, a, then b's save (a journal record) fails
    t.disk = &disk;
    const std::string path = t.run_dir() + "/checkpoint.json";
    try {
      t.run(graph);
      FAIL() << "the run did not stop";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "cannot append " + t.run_dir() + "/checkpoint.journal: No space left on device");
    }
    nlohmann::json saved = read_checkpoint_document(t.run_dir(), posix_run_disk());
    EXPECT_EQ(saved["state"], "running");
    EXPECT_EQ(saved["completed_nodes"], (nlohmann::json{"start", "a"}));
    EXPECT_EQ(saved["next_node"], "b");
    EXPECT_FALSE(fs::exists(path + ".tmp"));
    EXPECT_FALSE(fs::exists(t.run_dir() + "/c"));  // nothing queued after the failure was written

    t.disk = nullptr;
    EXPECT_EQ(t.resume(graph).outcome.status, StageStatus::kSuccess);
    EXPECT_EQ(comparable(t.run_dir()), comparable(reference.run_dir()));
  }
}

TEST(DiskFailureTest, ARunStoppedOnTheMemoryDiskResumesThereFromItsLastCheckpoint) {
  const Graph graph = testing::linear_graph({"a", "b", "c"});
  TestRun t;
  MemoryRunDisk memory;
  CheckpointHookDisk failing(memory);
  failing.fail_checkpoint = 3;
  t.disk = &failing;
  EXPECT_THROW(t.run(graph), std::runtime_error);
  EXPECT_EQ(load_checkpoint(t.run_dir(), memory).completed_nodes, (std::vector<std::string>{"start"}));
  EXPECT_FALSE(memory.exists(t.run_dir() + "/b"));

  t.disk = &memory;
  RunResult resumed = t.resume(graph);
  EXPECT_EQ(resumed.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(load_checkpoint(t.run_dir(), memory).completed_nodes, (std::vector<std::string>{"start", "a", "b", "c"}));
  EXPECT_EQ(read_manifest(t.run_dir(), memory).name, "linear");
  EXPECT_FALSE(fs::exists(t.run_dir()));
}

}  // namespace
}  // namespace attractor
