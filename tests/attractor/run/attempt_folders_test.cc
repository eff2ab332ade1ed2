// AttemptFolders: which attempt folders a visit makes, and what each holds (invariants in
// attractor/run/attempt_folders.h).

#include "attractor/run/attempt_folders.h"

#include <gtest/gtest.h>

#include <string>

#include "attractor/run/write_behind.h"
#include "support/memory_run_disk.h"

namespace attractor {
namespace {

class AttemptFoldersTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(disk.make_directories("run/plan")); }
  std::string read(const std::string& path) { return disk.exists(path) ? disk.read_file(path) : "<missing>"; }

  MemoryRunDisk disk;
  WriteBehind writer{disk, false};
};

TEST_F(AttemptFoldersTest, AFirstAttemptInAFreshStageFolderKeepsItsFilesThereAlone) {
  AttemptFolders folders(writer, "run/plan", true);
  folders.begin(1);
  folders.keep("prompt.md", "ask");
  folders.keep("response.md", "answer");
  writer.flush();
  EXPECT_FALSE(folders.has_folder());
  EXPECT_EQ(read("run/plan/prompt.md"), "ask");
  EXPECT_EQ(read("run/plan/response.md"), "answer");
  EXPECT_FALSE(disk.exists("run/plan/attempt-1"));
}

TEST_F(AttemptFoldersTest, ASecondAttemptFilesTheFirstOnesIntoAttemptOneAndKeepsItsOwnTwice) {
  AttemptFolders folders(writer, "run/plan", true);
  folders.begin(1);
  folders.keep("prompt.md", "ask 1");
  folders.keep("response.md", "answer 1");
  folders.begin(2);
  folders.keep("prompt.md", "ask 2");
  folders.begin(3);
  folders.keep("prompt.md", "ask 3");
  folders.keep("response.md", "answer 3");
  writer.flush();
  EXPECT_EQ(read("run/plan/attempt-1/prompt.md"), "ask 1");
  EXPECT_EQ(read("run/plan/attempt-1/response.md"), "answer 1");
  EXPECT_EQ(read("run/plan/attempt-2/prompt.md"), "ask 2");
  EXPECT_EQ(read("run/plan/attempt-2/response.md"), "<missing>");
  EXPECT_EQ(read("run/plan/attempt-3/prompt.md"), "ask 3");
  EXPECT_EQ(read("run/plan/prompt.md"), "ask 3");
  EXPECT_EQ(read("run/plan/response.md"), "answer 3");
}

TEST_F(AttemptFoldersTest, AFolderOpenedForAProgramGetsTheFilesKeptBeforeIt) {
  AttemptFolders folders(writer, "run/plan", true);
  folders.begin(1);
  folders.keep("prompt.md", "ask");
  const std::string own = folders.folder();
  folders.keep("response.md", "answer");
  writer.flush();
  EXPECT_EQ(own, "run/plan/attempt-1");
  EXPECT_TRUE(folders.has_folder());
  EXPECT_FALSE(folders.looked_at_disk());
  EXPECT_EQ(read("run/plan/attempt-1/prompt.md"), "ask");
  EXPECT_EQ(read("run/plan/attempt-1/response.md"), "answer");
  EXPECT_EQ(read("run/plan/prompt.md"), "ask");
  folders.begin(2);
  EXPECT_EQ(folders.folder(), "run/plan/attempt-2");
}

TEST_F(AttemptFoldersTest, AStageFolderFromBeforeNumbersItsFoldersAfterTheOnesOnDisk) {
  ASSERT_FALSE(disk.make_directories("run/plan/attempt-1"));
  disk.write_file("run/plan/attempt-1/response.md", "the killed run's");
  AttemptFolders folders(writer, "run/plan", false);
  folders.begin(1);
  folders.keep("response.md", "answer 1");
  writer.flush();
  EXPECT_FALSE(folders.has_folder());
  EXPECT_EQ(read("run/plan/response.md"), "answer 1");
  folders.begin(2);
  folders.keep("response.md", "answer 2");
  writer.flush();
  EXPECT_TRUE(folders.looked_at_disk());
  EXPECT_EQ(read("run/plan/attempt-1/response.md"), "the killed run's");
  EXPECT_EQ(read("run/plan/attempt-2/response.md"), "answer 1");
  EXPECT_EQ(read("run/plan/attempt-3/response.md"), "answer 2");
  EXPECT_EQ(read("run/plan/response.md"), "answer 2");
}

}  // namespace
}  // namespace attractor
