// What counts as a run in a run directory, and where --move-aside puts it (existing_run.h).

#include "attractor/launch/existing_run.h"

#include <gtest/gtest.h>

#include "support/memory_run_disk.h"

namespace attractor {
namespace {

TEST(ExistingRunTest, RunRecordsAndFoldersCountOtherFilesDoNot) {
  MemoryRunDisk disk;
  EXPECT_EQ(run_content_of(disk, "/r"), "") << "a missing directory holds no run";
  disk.make_directories("/r");
  disk.write_file("/r/run.lock", "1 2\n");
  disk.write_file("/r/notes.txt", "mine\n");
  EXPECT_EQ(run_content_of(disk, "/r"), "");
  EXPECT_EQ(existing_run_problem(disk, "/r", 0), std::nullopt);
  disk.make_directories("/r/review");
  EXPECT_EQ(run_content_of(disk, "/r"), "review/");
  disk.write_file("/r/events.jsonl", "");
  EXPECT_EQ(run_content_of(disk, "/r"), "events.jsonl");
  disk.write_file("/r/checkpoint.journal", "");
  EXPECT_EQ(run_content_of(disk, "/r"), "checkpoint.journal");
}

TEST(ExistingRunTest, TheRefusalNamesWhatTheDirectoryHoldsAndTheWaysOn) {
  MemoryRunDisk disk;
  disk.make_directories("/runs/f2/plan");
  EXPECT_EQ(existing_run_problem(disk, "/runs/f2", 0),
            "/runs/f2 already holds a run (it has plan/); nothing was written. Resume it with `attractor resume "
            "/runs/f2`, choose another --logs-root, or add --move-aside to move it to /runs/f2.old-1 and start afresh");
}

TEST(ExistingRunTest, MoveAsideTakesTheFirstFreeNumber) {
  MemoryRunDisk disk;
  disk.make_directories("/runs/f2");
  EXPECT_EQ(aside_path(disk, "/runs/f2/"), "/runs/f2.old-1");
  disk.make_directories("/runs/f2.old-1");
  disk.write_file("/runs/f2.old-2", "");
  EXPECT_EQ(aside_path(disk, "/runs/f2"), "/runs/f2.old-3");
}

}  // namespace
}  // namespace attractor
