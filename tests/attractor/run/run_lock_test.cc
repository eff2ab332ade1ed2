#include "attractor/run/run_lock.h"

#include <sys/file.h>
#include <sys/wait.h>
#include <fcntl.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "attractor/base/supervised_process.h"

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
  /// `PID START_TICKS\n` of this process.
  static std::string own_pid_line() {
    std::optional<ProcessGroupRecord> self = process_group_record(::getpid());
    return std::to_string(static_cast<long>(::getpid())) + " " + std::to_string(self ? self->start_ticks : 0) + "\n";
  }

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

TEST_F(RunLockTest, ALockHeldForADeadOwnerIsReplacedAfterAShortWait) {
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  int status = 0;
  ::waitpid(dead, &status, 0);
  std::ofstream(lock_file()) << dead << "\n";
  int stale = ::open(lock_file().c_str(), O_RDONLY | O_CLOEXEC);  // a dead owner's descendant
  ASSERT_EQ(::flock(stale, LOCK_EX | LOCK_NB), 0);
  EXPECT_EQ(run_lock_holder(dir_), std::nullopt);  // held, but by nobody alive
  {
    RunLock lock(dir_);
    EXPECT_EQ(content(), own_pid_line());
    EXPECT_EQ(run_lock_holder(dir_), static_cast<long>(::getpid()));
  }
  ::close(stale);
}

TEST_F(RunLockTest, AReusedPidWithAnotherStartTimeIsNoOwner) {
  std::ofstream(lock_file()) << ::getpid() << " 1\n";  // this pid, but started at another time
  int stale = ::open(lock_file().c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_EQ(::flock(stale, LOCK_EX | LOCK_NB), 0);
  EXPECT_EQ(run_lock_holder(dir_), std::nullopt);
  RunLock lock(dir_);
  EXPECT_EQ(content(), own_pid_line());
  ::close(stale);
}

}  // namespace
}  // namespace attractor
