// A new run never writes into a directory that holds another run (docs/cli.md, "Run
// directories"): `attractor run --logs-root DIR` is refused with exit 2 naming the run DIR holds,
// whatever that run is (same graph or another, completed, failed, interrupted, running), and
// nothing in DIR changes; `--move-aside` moves the old run to DIR.old-N intact and starts afresh.
// Through the real binary.

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

namespace fs = std::filesystem;

const std::string kSimple = std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot";

std::string tool_graph(const std::string& name, const std::string& command) {
  return "digraph " + name + " {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n" +
         "  work [shape=parallelogram, tool_command=\"" + command + "\"]\n  start -> work -> done\n}\n";
}

/// Every file below `dir` with its contents, for "nothing changed".
std::string snapshot(const std::string& dir) {
  std::vector<std::string> lines;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    lines.push_back(rel + (e.is_regular_file() ? "=" + slurp(e.path().string()) : "/"));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

class RunDirectoryReuseTest : public ::testing::Test {
 protected:
  /// A finished run of graphs/simple.dot in `run`.
  void completed_run() {
    ProcessResult r = run_attractor({"run", kSimple, "--simulate", "-q", "--logs-root", run_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  /// Starts a run of a pipeline whose tool sleeps 30 s, and returns once its stage has started.
  pid_t start_slow_run() {
    spit(dir_.sub("slow.dot"), tool_graph("slow", "sleep 30"));
    pid_t engine = spawn_program(ATTRACTOR_BINARY_PATH, {"run", dir_.sub("slow.dot"), "-q", "--logs-root", run_});
    for (int i = 0; i < 1000 && !fs::exists(run_ + "/work"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return engine;
  }
  /// Kills the engine `start_slow_run` started and waits for it.
  static void kill_run(pid_t engine) {
    ::kill(engine, SIGKILL);
    int status = 0;
    ::waitpid(engine, &status, 0);
  }
  /// `attractor run GRAPH --logs-root run` must be refused without touching the old run.
  void expect_refused(const std::string& graph, const std::string& holds) {
    const std::string before = snapshot(run_);
    ProcessResult r = run_attractor({"run", graph, "--simulate", "-q", "--logs-root", run_});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(run_ + " already holds a run (" + holds), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was written. Resume it with `attractor resume " + run_ +
                         "`, choose another --logs-root, or add --move-aside to move it to " + run_ + ".old-1"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(snapshot(run_), before) << "the refused run changed the old run's directory";
  }

  ScratchDir dir_;
  const std::string run_ = dir_.sub("run");
};

TEST_F(RunDirectoryReuseTest, ACompletedRunOfTheSameGraphIsRefused) {
  completed_run();
  expect_refused(kSimple, "graph 'Simple', completed, started ");
}

TEST_F(RunDirectoryReuseTest, ACompletedRunOfAnotherGraphIsRefused) {
  completed_run();
  spit(dir_.sub("other.dot"), tool_graph("other", "echo other"));
  expect_refused(dir_.sub("other.dot"), "graph 'Simple', completed, started ");
}

TEST_F(RunDirectoryReuseTest, AFailedRunIsRefused) {
  spit(dir_.sub("fails.dot"), tool_graph("fails", "exit 1"));
  ProcessResult r = run_attractor({"run", dir_.sub("fails.dot"), "-q", "--logs-root", run_});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  expect_refused(kSimple, "graph 'fails', failed, started ");
}

TEST_F(RunDirectoryReuseTest, AnInterruptedRunIsRefused) {
  pid_t engine = start_slow_run();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill_run(engine);
  expect_refused(kSimple, "graph 'slow', interrupted, started ");
}

TEST_F(RunDirectoryReuseTest, ARunningRunIsRefused) {
  pid_t engine = start_slow_run();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ProcessResult r = run_attractor({"run", kSimple, "--simulate", "-q", "--logs-root", run_});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(run_ + " already holds a run (graph 'slow', running, started "), std::string::npos) << r.err;
  ProcessResult aside = run_attractor({"run", kSimple, "--simulate", "-q", "--logs-root", run_, "--move-aside"});
  EXPECT_EQ(aside.exit_code, 2) << aside.err;
  EXPECT_NE(aside.err.find("holds a run that is running now"), std::string::npos) << aside.err;
  EXPECT_FALSE(fs::exists(run_ + ".old-1"));
  kill_run(engine);
}

TEST_F(RunDirectoryReuseTest, StageFoldersAloneCountAsARun) {
  fs::create_directories(run_ + "/review");
  expect_refused(kSimple, "it has review/");
}

TEST_F(RunDirectoryReuseTest, AnEmptyOrMissingDirectoryIsUsed) {
  fs::create_directories(run_);
  ProcessResult r = run_attractor({"run", kSimple, "--simulate", "-q", "--logs-root", run_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ProcessResult fresh = run_attractor({"run", kSimple, "--simulate", "-q", "--logs-root", dir_.sub("new/deeper")});
  EXPECT_EQ(fresh.exit_code, 0) << fresh.err;
}

TEST_F(RunDirectoryReuseTest, MoveAsideKeepsEachOldRunWholeAndStartsAfresh) {
  completed_run();
  const std::string first = snapshot(run_);
  ProcessResult second = run_attractor({"run", kSimple, "--simulate", "-q", "--logs-root", run_, "--move-aside"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("moved the run " + run_ + " held to " + run_ + ".old-1"), std::string::npos) << second.err;
  EXPECT_EQ(snapshot(run_ + ".old-1"), first);
  const std::string events = slurp(run_ + "/events.jsonl");
  EXPECT_EQ(events.find("PipelineStarted"), events.rfind("PipelineStarted")) << "one run per directory";
  ProcessResult third = run_attractor({"run", kSimple, "--simulate", "-q", "--logs-root", run_, "--move-aside"});
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_TRUE(fs::exists(run_ + ".old-2/checkpoint.json"));
  EXPECT_EQ(snapshot(run_ + ".old-1"), first);
}

TEST_F(RunDirectoryReuseTest, ResumeStillContinuesTheRunItsDirectoryHolds) {
  ProcessResult stopped = run_attractor(
      {"run", kSimple, "--simulate", "-q", "--logs-root", run_, "--max-total-tokens", "50"});
  ASSERT_EQ(stopped.exit_code, 4) << stopped.err;
  ProcessResult resumed = run_attractor({"resume", run_, "-q", "--max-total-tokens", "500"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

}  // namespace
}  // namespace attractor::hardening
