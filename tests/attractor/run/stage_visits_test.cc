// Earlier visits of a stage move to `visits/N/` in one step, on the in-memory disk and on the
// real one, and archiving again after an interruption neither loses nor mixes up files.

#include "attractor/run/stage_visits.h"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/run/memory_run_disk.h"
#include "attractor/run/posix_run_disk.h"
#include "support/temp_dir.h"

namespace attractor {
namespace {

using Names = std::vector<std::string>;

void write_visit(RunDisk& disk, const std::string& stage, const std::string& tag) {
  ASSERT_FALSE(disk.make_directories(stage));
  disk.write_file(stage + "/prompt.md", "prompt " + tag);
  disk.write_file(stage + "/status.json", "status " + tag);
}

void archive_three_visits(RunDisk& disk, const std::string& stage) {
  write_visit(disk, stage, "1");
  archive_stage_visit(disk, stage, 1);
  write_visit(disk, stage, "2");
  archive_stage_visit(disk, stage, 2);
  write_visit(disk, stage, "3");
  EXPECT_EQ(disk.list_directory(stage), (Names{"prompt.md", "status.json", "visits"}));
  EXPECT_EQ(disk.list_directory(stage + "/visits"), (Names{"1", "2"}));
  EXPECT_EQ(disk.read_file(stage + "/visits/1/prompt.md"), "prompt 1");
  EXPECT_EQ(disk.read_file(stage + "/visits/2/status.json"), "status 2");
  EXPECT_EQ(disk.read_file(stage + "/prompt.md"), "prompt 3");
}

TEST(StageVisitsTest, EarlierVisitsMoveToNumberedFoldersInMemory) {
  MemoryRunDisk disk;
  archive_three_visits(disk, "/run/work");
  EXPECT_EQ(stage_visit_dir("/run/work", 2), "/run/work/visits/2");
}

TEST(StageVisitsTest, EarlierVisitsMoveToNumberedFoldersOnDisk) {
  retrieval::testing::TempDir dir;
  archive_three_visits(posix_run_disk(), dir.str() + "/work");
}

TEST(StageVisitsTest, AMissingOrEmptyStageDirectoryArchivesNothing) {
  MemoryRunDisk disk;
  EXPECT_EQ(archive_stage_visit(disk, "/run/none", 1), VisitArchive::kNothing);
  EXPECT_FALSE(disk.exists("/run/none"));
  ASSERT_FALSE(disk.make_directories("/run/empty"));
  EXPECT_EQ(archive_stage_visit(disk, "/run/empty", 1), VisitArchive::kNothing);
  EXPECT_EQ(disk.list_directory("/run/empty"), Names{});
}

TEST(StageVisitsTest, ArchivingAgainKeepsTheArchivedVisitAndTheInterruptedOnesFiles) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work", "1");
  EXPECT_EQ(archive_stage_visit(disk, "/run/work", 1), VisitArchive::kMoved);
  disk.write_file("/run/work/prompt.md", "prompt 2 (interrupted)");
  EXPECT_EQ(archive_stage_visit(disk, "/run/work", 1), VisitArchive::kKept);
  EXPECT_EQ(disk.read_file("/run/work/visits/1/prompt.md"), "prompt 1");
  EXPECT_EQ(disk.read_file("/run/work/prompt.md"), "prompt 2 (interrupted)");
}

TEST(StageVisitsTest, AMoveStoppedHalfwayGoesOnWhereItStopped) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work", "1");
  ASSERT_FALSE(disk.make_directories("/run/work/visits/.1.partial"));
  disk.rename("/run/work/prompt.md", "/run/work/visits/.1.partial/prompt.md");
  archive_stage_visit(disk, "/run/work", 1);
  EXPECT_EQ(disk.list_directory("/run/work"), Names{"visits"});
  EXPECT_EQ(disk.list_directory("/run/work/visits"), Names{"1"});
  EXPECT_EQ(disk.list_directory("/run/work/visits/1"), (Names{"prompt.md", "status.json"}));
}

/// A memory disk that counts the removals it is asked for (a first visit should need none).
class CountingDisk : public MemoryRunDisk {
 public:
  void remove_file(const std::string& path) override {
    ++removals;
    MemoryRunDisk::remove_file(path);
  }
  int removals = 0;
};

TEST(StageVisitsTest, AFirstVisitIntoANewDirectoryOnlyCreatesIt) {
  CountingDisk disk;
  ASSERT_FALSE(disk.make_directories("/run"));
  open_stage_visit(disk, "/run/work", 1);
  EXPECT_TRUE(disk.is_directory("/run/work"));
  EXPECT_EQ(disk.list_directory("/run/work"), Names{});
  EXPECT_EQ(disk.removals, 0);
}

TEST(StageVisitsTest, AFirstVisitIntoAnExistingDirectoryDropsOnlyTheStaleStatus) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work", "from an interrupted run");
  open_stage_visit(disk, "/run/work", 1);
  EXPECT_EQ(disk.list_directory("/run/work"), Names{"prompt.md"});
}

TEST(StageVisitsTest, ARevisitArchivesThePreviousVisitWithoutRemovingAnything) {
  CountingDisk disk;
  write_visit(disk, "/run/work", "1");
  open_stage_visit(disk, "/run/work", 2);
  EXPECT_EQ(disk.list_directory("/run/work"), Names{"visits"});
  EXPECT_EQ(disk.read_file("/run/work/visits/1/status.json"), "status 1");
  EXPECT_EQ(disk.removals, 0);
}

TEST(StageVisitsTest, ARevisitOverAnInterruptedOneDropsItsStatusAndKeepsTheArchive) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work", "1");
  archive_stage_visit(disk, "/run/work", 1);
  write_visit(disk, "/run/work", "2 (interrupted)");
  open_stage_visit(disk, "/run/work", 2);
  EXPECT_EQ(disk.list_directory("/run/work"), (Names{"prompt.md", "visits"}));
  EXPECT_EQ(disk.read_file("/run/work/visits/1/status.json"), "status 1");
}

TEST(StageVisitsTest, OnTheRealDiskAFirstVisitCreatesAndAnInterruptedOneIsCleared) {
  retrieval::testing::TempDir dir;
  const std::string stage = dir.str() + "/work";
  bool created = false;
  ASSERT_FALSE(posix_run_disk().make_directories(stage, created));
  EXPECT_TRUE(created);
  ASSERT_FALSE(posix_run_disk().make_directories(stage, created));
  EXPECT_FALSE(created);
  posix_run_disk().write_file(stage + "/status.json", "stale");
  open_stage_visit(posix_run_disk(), stage, 1);
  EXPECT_FALSE(posix_run_disk().exists(stage + "/status.json"));
  open_stage_visit(posix_run_disk(), dir.str() + "/fresh", 1);
  EXPECT_TRUE(posix_run_disk().is_directory(dir.str() + "/fresh"));
}

TEST(StageVisitsTest, AFailedRenameNamesBothPaths) {
  MemoryRunDisk disk;
  try {
    disk.rename("/run/a", "/run/b");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot rename /run/a to /run/b: No such file or directory");
  }
  retrieval::testing::TempDir dir;
  const std::string a = dir.str() + "/a", b = dir.str() + "/b";
  try {
    posix_run_disk().rename(a, b);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot rename " + a + " to " + b + ": No such file or directory");
  }
}

}  // namespace
}  // namespace attractor
