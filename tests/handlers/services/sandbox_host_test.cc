// A kept sandbox through the real POSIX runner and bubblewrap: a command that enters the holder's
// namespaces is confined exactly as one with a bubblewrap of its own (docs/security.md §2.1).

#include "handlers/services/sandbox_host.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "handlers/services/subprocess.h"
#include "support/cli_test_support.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

using hardening::slurp;

/// True while `pid` runs (a zombie, left for the machine's init to reap, does not).
bool running(long pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

class SandboxHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = testing::make_temp_dir();
    fs::create_directories(root_ / "home" / ".ssh");
    std::ofstream(root_ / "home" / ".ssh" / "id_ed25519") << "SECRET-KEY\n";
    fs::create_directories(root_ / "work" / "src");
    fs::create_directories(root_ / "logs" / "run-1" / "agent");
    std::ofstream(root_ / "logs" / "run-1" / "checkpoint.json") << "{}\n";
    const char* home = std::getenv("HOME");
    saved_home_ = home ? home : "";
    ::setenv("HOME", (root_ / "home").c_str(), 1);
    spec_.level = SandboxLevel::kWorkspace;
    spec_.network = SandboxNetwork::kAll;
    place_sandbox(spec_, (root_ / "work").string(), (root_ / "logs" / "run-1" / "agent").string(),
                  (root_ / "logs" / "run-1").string());
  }
  void TearDown() override { ::setenv("HOME", saved_home_.c_str(), 1); }

  /// Runs `command` in the workspace through `kept`; its stdout in out, stderr in err.
  ProcessResult run(KeptSandbox& kept, const std::string& command, std::string& out, std::string& err,
                    std::int64_t timeout_ms = 20000) {
    ProcessSpec p;
    p.command = command;
    p.cwd = (root_ / "work" / "src").string();
    p.stdout_path = (root_ / "out.txt").string();
    p.stderr_path = (root_ / "err.txt").string();
    p.timeout_ms = timeout_ms;
    p.sandbox = spec_;
    p.kept = &kept;
    ProcessResult r = PosixProcessRunner().run(p);
    out = slurp((root_ / "out.txt").string());
    err = slurp((root_ / "err.txt").string());
    return r;
  }

  fs::path root_;
  std::string saved_home_;
  SandboxSpec spec_;
};

TEST_F(SandboxHostTest, CommandsEnterOneHolderAndAreConfinedAsWithTheirOwnBubblewrap) {
  KeptSandbox kept;
  std::string out, err;
  ProcessResult r = run(kept,
                        "pwd; echo built > out.txt; ls -A \"$HOME\"; "
                        "touch /etc/attractor-kept-probe; cat ../../logs/run-1/checkpoint.json",
                        out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out, (root_ / "work" / "src").string() + "\n");
  EXPECT_EQ(slurp((root_ / "work" / "src" / "out.txt").string()), "built\n");
  EXPECT_FALSE(fs::exists("/etc/attractor-kept-probe"));
  EXPECT_NE(err.find("Read-only file system"), std::string::npos) << err;
  EXPECT_NE(err.find("No such file or directory"), std::string::npos) << err;
  EXPECT_EQ(err.find("SECRET"), std::string::npos);
  SandboxHost* host = kept.host_for(spec_);
  ASSERT_NE(host, nullptr);
  const long holder = host->holder_pid();
  run(kept, "echo again", out, err);
  EXPECT_EQ(out, "again\n");
  EXPECT_EQ(kept.host_for(spec_)->holder_pid(), holder) << "the second command started another holder";
}

TEST_F(SandboxHostTest, TheStageFolderIsWritableAndTheRestOfTheRunHidden) {
  KeptSandbox kept;
  std::string out, err;
  const std::string stage = (root_ / "logs" / "run-1" / "agent").string();
  ProcessResult r = run(kept, "echo note > " + stage + "/note.txt && ls -A " + stage + "/..", out, err);
  EXPECT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(slurp(stage + "/note.txt"), "note\n");
  EXPECT_EQ(out, "agent\n");
}

TEST_F(SandboxHostTest, ACommandHasNoCapabilitiesAndCannotUncoverWhatIsHidden) {
  KeptSandbox kept;
  std::string out, err;
  ProcessResult r = run(kept, "grep -E '^Cap(Prm|Eff|Bnd|Amb)' /proc/self/status; umount \"$HOME\"", out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out,
            "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"
            "CapAmb:\t0000000000000000\n");
  r = run(kept, "ls -A \"$HOME\"; grep NoNewPrivs /proc/self/status", out, err);
  EXPECT_EQ(out, "NoNewPrivs:\t1\n");
}

TEST_F(SandboxHostTest, ACommandSeesTheHoldersProcessesNotAttractor) {
  KeptSandbox kept;
  std::string out, err;
  ProcessResult r = run(kept, "cat /proc/1/comm; kill -0 " + std::to_string(::getpid()) + " && echo reached", out, err);
  EXPECT_EQ(out, "bwrap\n");
  EXPECT_NE(r.exit_code, 0);
}

TEST_F(SandboxHostTest, ATimeoutStopsTheCommandAndItsChildrenButNotTheHolder) {
  KeptSandbox kept;
  std::string out, err;
  ProcessResult r = run(kept, "sleep 30 & sleep 30", out, err, 300);
  EXPECT_TRUE(r.timed_out);
  SandboxHost* host = kept.host_for(spec_);
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(host->alive());
  r = run(kept, "ps -e -o comm= | grep -c sleep", out, err);
  EXPECT_EQ(out, "0\n") << "a sleep of the timed-out command survived";
}

TEST_F(SandboxHostTest, AHolderKilledByACommandIsReplaced) {
  KeptSandbox kept;
  std::string out, err;
  run(kept, "true", out, err);
  ASSERT_NE(kept.host_for(spec_), nullptr);
  const long holder = kept.host_for(spec_)->holder_pid();
  run(kept, "kill -9 2", out, err);  // the holder's shell; its bubblewrap and namespace end with it
  for (int i = 0; i < 500 && running(holder); ++i) ::usleep(2000);
  ProcessResult r = run(kept, "echo fine", out, err);
  EXPECT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(out, "fine\n");
}

TEST_F(SandboxHostTest, TheHolderEndsWithItsSession) {
  long holder = 0;
  {
    KeptSandbox kept;
    std::string out, err;
    run(kept, "true", out, err);
    ASSERT_NE(kept.host_for(spec_), nullptr);
    holder = kept.host_for(spec_)->holder_pid();
    EXPECT_TRUE(running(holder));
  }
  for (int i = 0; i < 500 && running(holder); ++i) ::usleep(2000);
  EXPECT_FALSE(running(holder)) << "the holder outlived its session";
}

TEST_F(SandboxHostTest, NetworkNoneIsNotKeptAndAnotherConfinementGetsAnotherHolder) {
  KeptSandbox kept;
  SandboxSpec none = spec_;
  none.network = SandboxNetwork::kNone;
  EXPECT_EQ(kept.host_for(none), nullptr);
  SandboxHost* first = kept.host_for(spec_);
  ASSERT_NE(first, nullptr);
  const long holder = first->holder_pid();
  SandboxSpec loopback = spec_;
  loopback.network = SandboxNetwork::kLoopback;
  SandboxHost* second = kept.host_for(loopback);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second->holder_pid(), holder);
  EXPECT_TRUE(second->matches(loopback));
  EXPECT_FALSE(second->matches(spec_));
}

}  // namespace
}  // namespace attractor
