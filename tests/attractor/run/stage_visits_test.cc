// Earlier visits of a stage become `{node}.visits/N/` in one rename, on the in-memory disk and on
// the real one; archiving again after an interruption neither loses nor mixes up files; run
// directories of the nested layout are adopted.

#include "attractor/run/stage_visits.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/memory_run_disk.h"
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
  open_stage_visit(disk, stage, 2);
  write_visit(disk, stage, "2");
  open_stage_visit(disk, stage, 3);
  write_visit(disk, stage, "3");
  EXPECT_EQ(disk.list_directory(stage), (Names{"prompt.md", "status.json"}));
  EXPECT_EQ(disk.list_directory(stage + ".visits"), (Names{"1", "2"}));
  EXPECT_EQ(disk.read_file(stage + ".visits/1/prompt.md"), "prompt 1");
  EXPECT_EQ(disk.read_file(stage + ".visits/2/status.json"), "status 2");
  EXPECT_EQ(disk.read_file(stage + "/prompt.md"), "prompt 3");
}

TEST(StageVisitsTest, EarlierVisitsBecomeNumberedFoldersBesideTheStageInMemory) {
  MemoryRunDisk disk;
  archive_three_visits(disk, "/run/work");
  EXPECT_EQ(stage_visits_folder("/run/work/"), "/run/work.visits");
  EXPECT_EQ(stage_visit_dir("/run/work", 2), "/run/work.visits/2");
}

TEST(StageVisitsTest, EarlierVisitsBecomeNumberedFoldersBesideTheStageOnDisk) {
  retrieval::testing::TempDir dir;
  archive_three_visits(posix_run_disk(), dir.str() + "/work");
}

TEST(StageVisitsTest, AMissingStageDirectoryArchivesNothing) {
  MemoryRunDisk disk;
  EXPECT_EQ(archive_stage_visit(disk, "/run/none", 1), VisitArchive::kNothing);
  EXPECT_FALSE(disk.exists("/run/none"));
  EXPECT_FALSE(disk.exists("/run/none.visits"));
}

TEST(StageVisitsTest, ArchivingAgainKeepsTheArchivedVisitAndTheInterruptedOnesFiles) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work", "1");
  EXPECT_EQ(archive_stage_visit(disk, "/run/work", 1), VisitArchive::kMoved);
  EXPECT_FALSE(disk.exists("/run/work"));
  ASSERT_FALSE(disk.make_directories("/run/work"));
  disk.write_file("/run/work/prompt.md", "prompt 2 (interrupted)");
  EXPECT_EQ(archive_stage_visit(disk, "/run/work", 1), VisitArchive::kKept);
  EXPECT_EQ(disk.read_file("/run/work.visits/1/prompt.md"), "prompt 1");
  EXPECT_EQ(disk.read_file("/run/work/prompt.md"), "prompt 2 (interrupted)");
}

TEST(StageVisitsTest, ARevisitStoppedBetweenTheArchiveAndTheNewDirectoryStartsCleanly) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work", "2");
  ASSERT_FALSE(disk.make_directories("/run/work.visits"));
  disk.rename("/run/work", "/run/work.visits/2");  // the crash came right after the archive's rename
  open_stage_visit(disk, "/run/work", 3);
  EXPECT_TRUE(disk.is_directory("/run/work"));
  EXPECT_EQ(disk.list_directory("/run/work"), Names{});
  EXPECT_EQ(disk.list_directory("/run/work.visits/2"), (Names{"prompt.md", "status.json"}));
}

TEST(StageVisitsTest, ALaterVisitWhosePredecessorLeftNoDirectoryCreatesTheFolderOfVisits) {
  MemoryRunDisk disk;
  ASSERT_FALSE(disk.make_directories("/run"));
  open_stage_visit(disk, "/run/work", 3);  // visit 2 never made its directory
  write_visit(disk, "/run/work", "3");
  open_stage_visit(disk, "/run/work", 4);
  EXPECT_EQ(disk.list_directory("/run/work.visits"), Names{"3"});
  EXPECT_EQ(disk.read_file("/run/work.visits/3/prompt.md"), "prompt 3");
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
  EXPECT_EQ(disk.list_directory("/run/work"), Names{});
  EXPECT_EQ(disk.read_file("/run/work.visits/1/status.json"), "status 1");
  EXPECT_EQ(disk.removals, 0);
}

TEST(StageVisitsTest, ARevisitOverAnInterruptedOneDropsItsStatusAndKeepsTheArchive) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work", "1");
  archive_stage_visit(disk, "/run/work", 1);
  write_visit(disk, "/run/work", "2 (interrupted)");
  open_stage_visit(disk, "/run/work", 2);
  EXPECT_EQ(disk.list_directory("/run/work"), Names{"prompt.md"});
  EXPECT_EQ(disk.read_file("/run/work.visits/1/status.json"), "status 1");
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

TEST(StageVisitsTest, TheNestedLayoutOfEarlierBuildsIsAdoptedInOneRename) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/work/visits/1", "1");
  write_visit(disk, "/run/work/visits/.2.partial", "2, half moved");
  write_visit(disk, "/run/work", "3");
  EXPECT_TRUE(adopt_nested_visits(disk, "/run/work"));
  EXPECT_EQ(disk.list_directory("/run/work"), (Names{"prompt.md", "status.json"}));
  EXPECT_EQ(disk.list_directory("/run/work.visits"), (Names{".2.partial", "1"}));
  EXPECT_FALSE(adopt_nested_visits(disk, "/run/work"));
  open_stage_visit(disk, "/run/work", 4);
  EXPECT_EQ(disk.read_file("/run/work.visits/3/prompt.md"), "prompt 3");
}

TEST(StageVisitsTest, AVisitsFolderAHandlerWroteOrAnExistingFolderOfVisitsIsLeftAlone) {
  MemoryRunDisk disk;
  write_visit(disk, "/run/tool/visits/1", "1");
  disk.write_file("/run/tool/visits/report.txt", "a handler's file");
  EXPECT_FALSE(adopt_nested_visits(disk, "/run/tool"));
  EXPECT_TRUE(disk.exists("/run/tool/visits/report.txt"));
  write_visit(disk, "/run/work/visits/1", "1");
  ASSERT_FALSE(disk.make_directories("/run/work.visits/2"));
  EXPECT_FALSE(adopt_nested_visits(disk, "/run/work"));
  EXPECT_TRUE(disk.exists("/run/work/visits/1/prompt.md"));
  EXPECT_FALSE(adopt_nested_visits(disk, "/run/none"));
}

TEST(StageVisitsTest, AttemptFoldersAreNeverReused) {
  MemoryRunDisk disk;
  open_stage_visit(disk, "/run/work", 1);
  std::int64_t last = 0;
  EXPECT_EQ(open_attempt_folder(disk, "/run/work", last), "/run/work/attempt-1");
  EXPECT_EQ(open_attempt_folder(disk, "/run/work", last), "/run/work/attempt-2");
  std::int64_t resumed = 0;  // a resumed run's first attempt of the same visit
  EXPECT_EQ(open_attempt_folder(disk, "/run/work", resumed), "/run/work/attempt-3");
  EXPECT_EQ(resumed, 3);
}

TEST(StageVisitsTest, ReopeningAnInterruptedVisitStopsTheProcessGroupsItsAttemptsRecorded) {
  retrieval::testing::TempDir dir;
  RunDisk& disk = posix_run_disk();
  const std::string stage = dir.str() + "/work";
  open_stage_visit(disk, stage, 1);
  std::int64_t last = 0;
  const std::string attempt = open_attempt_folder(disk, stage, last);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  std::optional<ProcessGroupRecord> record = process_group_record(pid);
  ASSERT_TRUE(record);
  record_attempt_process(disk, attempt, *record);
  disk.write_file(attempt + "/process-1.json", "{\"pgid\": 1, \"torn");  // a crash mid-record: skipped
  ASSERT_TRUE(process_group_alive(*record));
  open_stage_visit(disk, stage, 1);  // the resumed run's visit
  EXPECT_FALSE(process_group_alive(*record));
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

}  // namespace
}  // namespace attractor
