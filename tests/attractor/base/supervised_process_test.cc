#include "attractor/base/supervised_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

extern char** environ;

namespace attractor {
namespace {

namespace fs = std::filesystem;

/// Runs `/bin/sh -c script` supervised with /dev/null streams and waits for it.
SupervisedProcess& run_shell(SupervisedProcess& p, const std::string& script, const std::string& cwd = "",
                             std::function<void(const ProcessGroupRecord&)> on_started = nullptr) {
  SpawnSpec spec;
  spec.program = "/bin/sh";
  spec.argv = {"sh", "-c", script};
  for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
  spec.cwd = cwd;
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = null_fd;
  spec.on_started = std::move(on_started);
  bool started = p.start(spec);
  ::close(null_fd);
  EXPECT_TRUE(started) << p.error();
  while (started && !p.wait_for(-1)) {
  }
  return p;
}

std::string temp_file(const std::string& name) {
  return (fs::temp_directory_path() / ("attractor-supervised-" + std::to_string(::getpid()) + "-" + name)).string();
}

bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  return text[text.rfind(')') + 2] != 'Z';
}

TEST(SupervisedProcessTest, RelaysTheExitStatusAndTheSignalOfTheProgram) {
  SupervisedProcess exited;
  run_shell(exited, "exit 7");
  ASSERT_TRUE(WIFEXITED(exited.wait_status()));
  EXPECT_EQ(WEXITSTATUS(exited.wait_status()), 7);
  EXPECT_EQ(exited.failure(), SpawnFailure::kNone);
  SupervisedProcess killed;
  run_shell(killed, "kill -9 $$");
  ASSERT_TRUE(WIFSIGNALED(killed.wait_status()));
  EXPECT_EQ(WTERMSIG(killed.wait_status()), SIGKILL);
}

TEST(SupervisedProcessTest, AMissingWorkingDirectoryOrProgramIsReportedAsSuch) {
  SupervisedProcess no_dir;
  run_shell(no_dir, "true", "/nonexistent/attractor-test-dir");
  EXPECT_EQ(no_dir.failure(), SpawnFailure::kCwd);
  EXPECT_EQ(no_dir.error(), "cannot change to directory /nonexistent/attractor-test-dir: No such file or directory");
  SupervisedProcess no_program;
  SpawnSpec spec;
  spec.program = "attractor-no-such-program";
  spec.argv = {"attractor-no-such-program"};
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = null_fd;
  ASSERT_TRUE(no_program.start(spec));
  ::close(null_fd);
  while (!no_program.wait_for(-1)) {
  }
  EXPECT_EQ(no_program.failure(), SpawnFailure::kExec);
  EXPECT_EQ(no_program.failure_errno(), ENOENT);
}

TEST(SupervisedProcessTest, BackgroundChildrenEndWithTheProgram) {
  const std::string pid_file = temp_file("bg");
  SupervisedProcess p;
  run_shell(p, "sleep 30 & echo $! > " + pid_file);
  std::ifstream in(pid_file);
  pid_t bg = 0;
  in >> bg;
  ASSERT_GT(bg, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (alive(bg) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_FALSE(alive(bg));
  fs::remove(pid_file);
}

TEST(SupervisedProcessTest, TheRecordNamesTheGroupUntilItIsGone) {
  ProcessGroupRecord seen;
  SupervisedProcess p;
  SpawnSpec spec;
  spec.program = "/bin/sh";
  spec.argv = {"sh", "-c", "sleep 30"};
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = null_fd;
  spec.on_started = [&](const ProcessGroupRecord& r) { seen = r; };
  ASSERT_TRUE(p.start(spec));
  ::close(null_fd);
  EXPECT_EQ(seen.pgid, p.pgid());
  EXPECT_TRUE(process_group_alive(seen));
  ProcessGroupRecord reused = seen;
  reused.start_ticks += 1;
  EXPECT_FALSE(process_group_alive(reused));  // the same pid with another start time is not ours
  ProcessGroupRecord other_boot = seen;
  other_boot.boot_id = "another boot";
  EXPECT_FALSE(process_group_alive(other_boot));
  EXPECT_EQ(ProcessGroupRecord::from_json(seen.to_json()).pgid, seen.pgid);
  EXPECT_TRUE(stop_process_group(seen, 2000));
  while (!p.wait_for(-1)) {
  }
  EXPECT_FALSE(process_group_alive(seen));
}

TEST(SupervisedProcessTest, AFailingStartHookStopsTheGroupBeforeTheProgramRuns) {
  const std::string marker = temp_file("ran");
  SupervisedProcess p;
  SpawnSpec spec;
  spec.program = "/bin/sh";
  spec.argv = {"sh", "-c", "touch " + marker};
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = null_fd;
  spec.on_started = [](const ProcessGroupRecord&) { throw std::runtime_error("disk full"); };
  EXPECT_FALSE(p.start(spec));
  ::close(null_fd);
  EXPECT_EQ(p.error(), "disk full");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(fs::exists(marker));
}

TEST(SupervisedProcessTest, TheProgramRunsInASessionOfItsOwnWithNoTerminal) {
  const std::string out = temp_file("session");
  SupervisedProcess p;
  run_shell(p,
            "cut -d' ' -f6 /proc/$$/stat > " + out + "; (exec 3<>/dev/tty) 2>/dev/null || echo no-terminal >> " + out);
  std::ifstream in(out);
  std::string session, terminal;
  std::getline(in, session);
  std::getline(in, terminal);
  EXPECT_EQ(session, std::to_string(p.pgid())) << "the program's session is not the supervisor's own";
  EXPECT_NE(std::stol(session), static_cast<long>(::getsid(0)));
  EXPECT_EQ(terminal, "no-terminal");
  fs::remove(out);
}

TEST(SupervisedProcessTest, ArgumentsAndEnvironmentReachTheProgramAfterTheSpecIsGone) {
  const std::string out = temp_file("args");
  SupervisedProcess p;
  {
    SpawnSpec spec;
    spec.program = "sh";
    spec.argv = {"sh", "-c", "printf '%s|%s|%s' \"$0\" \"$1\" \"$ATTRACTOR_TEST_VALUE\" > " + out, "first", "second"};
    spec.env = {"ATTRACTOR_TEST_VALUE=from the spec", "PATH=/usr/bin:/bin"};
    int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = null_fd;
    ASSERT_TRUE(p.start(spec)) << p.error();
    ::close(null_fd);
    spec.argv.assign(3, std::string(64, 'x'));
    spec.env.assign(2, std::string(64, 'y'));
  }
  while (!p.wait_for(-1)) {
  }
  ASSERT_TRUE(WIFEXITED(p.wait_status()));
  EXPECT_EQ(WEXITSTATUS(p.wait_status()), 0);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "first|second|from the spec");
  fs::remove(out);
}

TEST(SupervisedProcessTest, TheProgramDiesWithItsSupervisor) {
  const std::string pid_file = temp_file("program");
  SupervisedProcess p;
  SpawnSpec spec;
  spec.program = "/bin/sh";
  spec.argv = {"sh", "-c", "echo $$ > " + pid_file + "; exec sleep 30"};
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = null_fd;
  ASSERT_TRUE(p.start(spec)) << p.error();
  ::close(null_fd);
  pid_t program = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (program <= 0 && std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(pid_file);
    in >> program;
    if (program <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_GT(program, 0);
  ASSERT_TRUE(alive(program));
  ::kill(p.pgid(), SIGKILL);  // the supervisor alone, as the OOM killer would
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (alive(program) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_FALSE(alive(program));
  while (!p.wait_for(-1)) {
  }
  ASSERT_TRUE(WIFSIGNALED(p.wait_status()));
  EXPECT_EQ(WTERMSIG(p.wait_status()), SIGKILL);
  EXPECT_EQ(p.failure(), SpawnFailure::kNone);
  fs::remove(pid_file);
}

}  // namespace
}  // namespace attractor
