#include "attractor/run/run_lock.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace attractor {
namespace {

namespace fs = std::filesystem;

class RunLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("attractor-run-lock-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string lock_file() const { return dir_ + "/" + kRunLockFile; }
  std::string content() const {
    std::ifstream in(lock_file());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static std::string own_pid_line() { return std::to_string(static_cast<long>(::getpid())) + "\n"; }

  std::string dir_;
};

TEST_F(RunLockTest, TheHolderWritesItsPidAndRemovesTheFileWhenDone) {
  {
    RunLock lock(dir_);
    EXPECT_EQ(content(), own_pid_line());
    EXPECT_EQ(run_lock_holder(dir_), static_cast<long>(::getpid()));
  }
  EXPECT_FALSE(fs::exists(lock_file()));
  EXPECT_EQ(run_lock_holder(dir_), std::nullopt);
}

TEST_F(RunLockTest, AStaleLongerLineIsReplacedByThePidAlone) {
  std::ofstream(lock_file()) << "123456789012345678\nleft by a process that died\n";
  EXPECT_EQ(run_lock_holder(dir_), std::nullopt);
  RunLock lock(dir_);
  EXPECT_EQ(content(), own_pid_line());
}

TEST_F(RunLockTest, AShorterStaleLineIsOverwritten) {
  std::ofstream(lock_file()) << "7\n";
  RunLock lock(dir_);
  EXPECT_EQ(content(), own_pid_line());
}

TEST_F(RunLockTest, ASecondHolderIsRefusedWithThePidOfTheFirst) {
  RunLock first(dir_);
  try {
    RunLock second(dir_);
    FAIL() << "the second lock was granted";
  } catch (const RunLockBusy& e) {
    EXPECT_EQ(std::string(e.what()), dir_ + " is being run by process " + std::to_string(::getpid()));
  }
  EXPECT_EQ(content(), own_pid_line());
}

}  // namespace
}  // namespace attractor
