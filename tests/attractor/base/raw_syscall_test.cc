#include "attractor/base/raw_syscall.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <gtest/gtest.h>

namespace attractor {
namespace {

TEST(RawSyscallTest, ReturnsTheResultOrMinusErrnoAndLeavesErrnoAlone) {
  EXPECT_EQ(raw::call(SYS_getpid), ::getpid());
  errno = 0;
  EXPECT_EQ(raw::call(SYS_close, -1), -EBADF);
  if (raw::kSharedMemoryChild) EXPECT_EQ(errno, 0);
}

/// The child's half of the clone test: writes into the parent's memory and exits with 7.
int write_and_exit(void* cell) {
  *static_cast<volatile int*>(cell) = 42;
  return 7;
}

TEST(RawSyscallTest, ACloneOnItsOwnStackSharesTheMemoryAndExitsWithTheFunctionsResult) {
  if (!raw::kSharedMemoryChild) GTEST_SKIP() << "no child shares memory in this build (raw_syscall.h)";
  constexpr std::size_t kBytes = 64 * 1024;
  void* stack = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  ASSERT_NE(stack, MAP_FAILED);
  volatile int cell = 0;
  long pid = raw::clone_on_stack(CLONE_VM | CLONE_VFORK | SIGCHLD, static_cast<char*>(stack) + kBytes, write_and_exit,
                                 const_cast<int*>(&cell));
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(static_cast<pid_t>(pid), &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(cell, 42);
  ::munmap(stack, kBytes);
}

}  // namespace
}  // namespace attractor
