// `attractor runs` and `attractor status [--follow]` on real run directories left by real
// processes: completed, failed, cancelled (SIGINT), stopped (budget), interrupted (SIGKILL),
// running (another process holds the run lock) and unreadable; and --follow tailing a run that
// another process is executing until it ends.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;

const std::string kData = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/";

/// Starts `attractor args...` in the background with stdout and stderr to `log`.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  return hardening::spawn_program(ATTRACTOR_BINARY_PATH, args, {}, log);
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Waits until the `wait_for_go` tool of interruptible.dot is running in `run_dir`.
bool wait_until_waiting(const std::string& run_dir) {
  for (int i = 0; i < 500; ++i) {
    if (fs::exists(run_dir + "/wait_for_go/attempt-1/context.json")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::map<std::string, nlohmann::json> runs_by_dir(const std::string& root) {
  ProcessResult r = run_attractor({"runs", "--logs-root", root, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, nlohmann::json> by_dir;
  for (const nlohmann::json& run : nlohmann::json::parse(r.out)) {
    by_dir[fs::path(run["run_dir"].get<std::string>()).filename().string()] = run;
  }
  return by_dir;
}

TEST(RunsStatusTest, RunsTellsEveryKindOfRunApart) {
  ScratchDir dir;
  const std::string root = dir.sub("runs");
  auto sub = [&](const char* name) { return root + "/" + name; };
  ASSERT_EQ(run_attractor({"run", std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot", "--simulate", "-q",
                           "--logs-root", sub("completed")})
                .exit_code,
            0);
  ASSERT_EQ(run_attractor({"run", kData + "failing.dot", "-q", "--logs-root", sub("failed")}).exit_code, 1);
  ASSERT_EQ(run_attractor({"run", std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot", "--simulate", "-q",
                           "--logs-root", sub("stopped"), "--max-total-tokens", "10"})
                .exit_code,
            4);
  pid_t running = 0;
  for (const char* kind : {"cancelled", "interrupted", "running"}) {
    pid_t pid = running = spawn({"run", kData + "interruptible.dot", "-q", "--logs-root", sub(kind)},
                                dir.sub(kind) + ".log");
    ASSERT_TRUE(wait_until_waiting(sub(kind))) << kind;
    if (std::string(kind) == "running") continue;
    ::kill(pid, std::string(kind) == "cancelled" ? SIGINT : SIGKILL);
    wait_exit(pid);
  }
  fs::create_directories(sub("unreadable"));
  spit(sub("unreadable") + "/manifest.json", "{not json");
  fs::create_directories(sub("not-a-run"));

  std::map<std::string, nlohmann::json> runs = runs_by_dir(root);
  EXPECT_EQ(runs.size(), 7u);
  EXPECT_FALSE(runs.count("not-a-run"));
  EXPECT_EQ(runs["completed"]["status"], "completed");
  EXPECT_EQ(runs["completed"]["graph"], "Simple");
  EXPECT_EQ(runs["completed"]["node"], "exit");
  EXPECT_EQ(runs["failed"]["status"], "failed");
  EXPECT_EQ(runs["failed"]["reason"],
            "stage `broken` failed after 1 attempt and no failure route leads on: tool exited "
            "with code 3");
  EXPECT_EQ(runs["stopped"]["status"], "stopped");
  EXPECT_EQ(runs["stopped"]["node"], "report");
  EXPECT_EQ(runs["cancelled"]["status"], "cancelled");
  EXPECT_EQ(runs["interrupted"]["status"], "interrupted");  // SIGKILL: a stale lock file, nobody holds it
  EXPECT_TRUE(fs::exists(sub("interrupted") + "/run.lock"));
  EXPECT_EQ(runs["running"]["status"], "running");
  EXPECT_EQ(runs["running"]["node"], "wait_for_go");
  EXPECT_TRUE(runs["running"]["pid"].is_number());
  EXPECT_EQ(runs["unreadable"]["status"], "unreadable");

  // The table lists the same runs; a run another process runs cannot be resumed meanwhile.
  ProcessResult table = run_attractor({"runs", "--logs-root", root});
  EXPECT_EQ(table.out.rfind("STATUS       STARTED                  DURATION  PIPELINE", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("\ncancelled "), std::string::npos) << table.out;
  ProcessResult busy = run_attractor({"resume", sub("running"), "-q"});
  EXPECT_EQ(busy.exit_code, 2);
  EXPECT_EQ(busy.err, "attractor resume: " + sub("running") + " is being run by process " +
                          std::to_string(runs["running"]["pid"].get<long>()) + "\n");

  // The interrupted run resumes (its stale lock is taken over) once its tool may finish.
  spit(sub("interrupted") + "/go", "");
  EXPECT_EQ(run_attractor({"resume", sub("interrupted"), "-q"}).exit_code, 0);
  EXPECT_EQ(runs_by_dir(root)["interrupted"]["status"], "completed");
  EXPECT_FALSE(fs::exists(sub("interrupted") + "/run.lock"));
  spit(sub("running") + "/go", "");
  EXPECT_EQ(wait_exit(running), 0);
}

TEST(RunsStatusTest, StatusFollowTailsARunOfAnotherProcessUntilItEnds) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  pid_t runner = spawn({"run", kData + "interruptible.dot", "-q", "--logs-root", run}, dir.sub("run.log"));
  ASSERT_TRUE(wait_until_waiting(run));
  const std::string follow_log = dir.sub("follow.log");
  pid_t follower = spawn({"status", run, "--follow"}, follow_log);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_NE(slurp(follow_log).find("  ✓ first "), std::string::npos) << slurp(follow_log);
  spit(run + "/go", "");
  EXPECT_EQ(wait_exit(follower), 0);
  EXPECT_EQ(wait_exit(runner), 0);
  std::string out = slurp(follow_log);
  EXPECT_NE(out.find("  ✓ wait_for_go "), std::string::npos) << out;
  EXPECT_NE(out.find("pipeline completed in "), std::string::npos) << out;
  EXPECT_NE(out.find("\nstatus:   completed\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nstages:   3 completed\n"), std::string::npos) << out;

  ProcessResult json = run_attractor({"status", run, "--json"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["completed_nodes"], (nlohmann::json{"start", "first", "wait_for_go"}));
  ProcessResult missing = run_attractor({"status", dir.sub("nothing")});
  EXPECT_EQ(missing.exit_code, 2);
}

// Issue 36 point 12: a run cancelled a while after its last checkpoint lasted until it was
// cancelled, not until that checkpoint.
TEST(RunsStatusTest, ACancelledRunLastsUntilItWasCancelled) {
  ScratchDir dir;
  const std::string run = dir.sub("runs/cancelled");
  pid_t pid = spawn({"run", kData + "interruptible.dot", "-q", "--logs-root", run}, dir.sub("cancelled.log"));
  ASSERT_TRUE(wait_until_waiting(run));
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130);
  const nlohmann::json summary = runs_by_dir(dir.sub("runs"))["cancelled"];
  EXPECT_EQ(summary["status"], "cancelled");
  EXPECT_GE(summary["duration_ms"].get<long long>(), 1200);
}

}  // namespace
}  // namespace attractor
