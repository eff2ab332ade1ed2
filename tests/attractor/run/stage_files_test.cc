// StageFiles: writes queued behind the run's writer and on disk after a flush; a failed write
// surfaces as the writer's failure on the next call; without a writer, inline on the real disk.

#include "attractor/run/stage_files.h"

#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/write_behind.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

class StageFilesTest : public ::testing::Test {
 protected:
  StageFilesTest() {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("attractor-stage-files-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(dir_);
  }
  ~StageFilesTest() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string sub(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(StageFilesTest, WritesGoBehindTheWritersEarlierOperationsAndAreOnDiskAfterAFlush) {
  WriteBehind writer;
  writer.make_directories(sub("stage"));
  StageFiles files(&writer);
  files.write(sub("stage/prompt.md"), "hello");
  files.flush();
  EXPECT_EQ(read_text_file(sub("stage/prompt.md")), "hello");
  EXPECT_EQ(&files.disk(), &writer.disk());
}

TEST_F(StageFilesTest, AFailedWriteIsTheWritersFailureOnTheNextCall) {
  WriteBehind writer;
  StageFiles files(&writer);
  files.write(sub("missing/prompt.md"), "lost");
  try {
    files.flush();
    FAIL() << "the flush did not report the failed write";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + sub("missing/prompt.md") + ": No such file or directory");
  }
  EXPECT_THROW(files.write(sub("later.md"), "dropped"), std::runtime_error);
  EXPECT_THROW(writer.flush(), std::runtime_error);
  EXPECT_FALSE(fs::exists(sub("later.md")));
}

TEST_F(StageFilesTest, WithoutAWriterTheyAreWrittenInlineOnTheRealDisk) {
  StageFiles files;
  files.write(sub("inline.md"), "now");
  EXPECT_EQ(read_text_file(sub("inline.md")), "now");
  files.flush();
  EXPECT_EQ(&files.disk(), &posix_run_disk());
  EXPECT_THROW(files.write(sub("missing/x.md"), "x"), std::runtime_error);
}

}  // namespace
}  // namespace attractor
