// The process model of a run (docs/run-directory.md §8) through the real binary, real tool
// processes and real SIGKILLs: a tool's process group dies with attractor and with its stage, a
// killed run's tool can never write the resumed run's outcome, no descriptor of attractor's
// reaches a tool, a lock held for a dead owner does not block a resume, and the exit code of a
// run signalled at any checkpoint says what that checkpoint says.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// True while `pid` is a process that has not exited (a zombie has).
bool running(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  std::size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

/// Waits up to `ms` for `predicate`; true when it held.
template <typename Predicate>
bool eventually(int ms, Predicate predicate) {
  auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  while (!predicate()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

long pid_in(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  in >> pid;
  return pid;
}

/// A one-tool pipeline: start -> `id` (running `command`) -> done.
std::string one_tool(const std::string& command, const std::string& extra = "") {
  nlohmann::json quoted = command;
  return "digraph p {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  work [shape=parallelogram, tool_command=" +
         quoted.dump() + extra + "]\n  start -> work -> done\n}\n";
}

/// Starts `attractor run GRAPH --logs-root RUN` in the background.
pid_t start_run(const std::string& graph, const std::string& run, const std::string& log) {
  return spawn_program(ATTRACTOR_BINARY_PATH, {"run", graph, "-q", "--logs-root", run}, {}, log);
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

TEST(ProcessModelTest, SigkillOfTheEngineEndsTheToolAndItsBackgroundChildren) {
  ScratchDir dir;
  spit(dir.sub("p.dot"),
       one_tool("sleep 30 & echo $! > " + dir.sub("bg.pid") + "; echo $$ > " + dir.sub("sh.pid") + "; wait"));
  pid_t engine = start_run(dir.sub("p.dot"), dir.sub("run"), dir.sub("log"));
  ASSERT_TRUE(eventually(10000, [&] { return pid_in(dir.sub("sh.pid")) > 0 && pid_in(dir.sub("bg.pid")) > 0; }))
      << slurp(dir.sub("log"));
  const long shell = pid_in(dir.sub("sh.pid"));
  const long background = pid_in(dir.sub("bg.pid"));
  kill_and_reap(engine);
  EXPECT_TRUE(eventually(2000, [&] { return !running(shell) && !running(background); }))
      << "the tool (" << shell << ") or its background child (" << background << ") outlived the killed engine";
  ::kill(static_cast<pid_t>(background), SIGKILL);
  ::kill(static_cast<pid_t>(shell), SIGKILL);
}

TEST(ProcessModelTest, AToolsBackgroundChildEndsWithItsStage) {
  ScratchDir dir;
  spit(dir.sub("p.dot"), one_tool("sleep 30 & echo $! > " + dir.sub("bg.pid")));
  ProcessResult r = run_attractor({"run", dir.sub("p.dot"), "-q", "--logs-root", dir.sub("run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const long background = pid_in(dir.sub("bg.pid"));
  ASSERT_GT(background, 0);
  EXPECT_TRUE(eventually(2000, [&] { return !running(background); })) << "the stage's background child still runs";
  ::kill(static_cast<pid_t>(background), SIGKILL);
}

// Issue 42's first point, made certain: the killed run's tool leaves a writer that escapes its
// process group (setsid) and writes status.json into the stage directory it was given while the
// resumed attempt runs. Only the attempt folders keep it out of the resumed outcome.
TEST(ProcessModelTest, AKilledRunsEscapedWriterCannotSupplyTheResumedOutcome) {
  ScratchDir dir;
  const std::string first = dir.sub("first-started");
  const std::string poison =
      "{\"outcome\":\"fail\",\"failure_reason\":\"first run (killed)\","
      "\"context_updates\":{\"who\":\"first run (killed)\"}}";
  const std::string command = "if [ ! -e " + first + " ]; then : > " + first + "; setsid sh -c ': > " +
                              dir.sub("escaped") +
                              "; sleep 0.4; printf %s \"$1\" > "
                              "\"$ATTRACTOR_STAGE_DIR/status.json\"; echo done > " +
                              dir.sub("poison-written") + "' sh '" + poison +
                              "' & sleep 30; else sleep 0.9; echo second; fi";
  spit(dir.sub("p.dot"), one_tool(command));
  const std::string run = dir.sub("run");
  pid_t engine = start_run(dir.sub("p.dot"), run, dir.sub("log"));
  // Killed only once the writer has left the tool's group (a kill before its setsid would end it).
  ASSERT_TRUE(eventually(10000, [&] { return fs::exists(dir.sub("escaped")); })) << slurp(dir.sub("log"));
  kill_and_reap(engine);

  ProcessResult r = run_attractor({"resume", run, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(eventually(5000, [&] { return fs::exists(dir.sub("poison-written")); }));  // it did write, late
  nlohmann::json checkpoint = nlohmann::json::parse(slurp(run + "/checkpoint.json"));
  EXPECT_EQ(checkpoint["state"], "success");
  EXPECT_FALSE(checkpoint["context"].contains("who")) << checkpoint["context"].dump();
  nlohmann::json status = nlohmann::json::parse(slurp(run + "/work/status.json"));
  EXPECT_EQ(status["outcome"], "success") << status.dump();
  EXPECT_EQ(checkpoint["context"]["tool.output"], "second\n");
  // Each attempt kept its own folder: the killed one's holds the late write.
  EXPECT_NE(slurp(run + "/work/attempt-1/status.json").find("first run (killed)"), std::string::npos);
  EXPECT_EQ(slurp(run + "/work/attempt-2/stdout.txt"), "second\n");
  EXPECT_FALSE(fs::exists(run + "/work/attempt-2/status.json"));
}

// The resume checks the killed attempt's recorded process group before it runs the stage again: a
// group that is still there (here: its supervisor was killed first, so nothing ended the tool when
// the engine died) is killed first, and the two attempts never run side by side.
TEST(ProcessModelTest, ResumeStopsTheKilledAttemptsProcessGroupBeforeRunningTheStageAgain) {
  ScratchDir dir;
  const std::string first = dir.sub("first-started");
  const std::string shell_file = dir.sub("first-shell");
  spit(dir.sub("p.dot"), one_tool("if [ ! -e " + first + " ]; then echo $$ > " + shell_file +
                                  "; sleep 30 & echo $! > " + first + "; wait; else echo second; fi"));
  const std::string run = dir.sub("run");
  pid_t engine = start_run(dir.sub("p.dot"), run, dir.sub("log"));
  ASSERT_TRUE(eventually(10000, [&] { return pid_in(first) > 0; })) << slurp(dir.sub("log"));
  const long child = pid_in(first);
  const long shell = pid_in(shell_file);
  std::string record;
  ASSERT_TRUE(eventually(2000, [&] {
    for (const auto& e : fs::directory_iterator(run + "/work/attempt-1")) {
      if (e.path().filename().string().starts_with("process-")) record = e.path().string();
    }
    return !record.empty();
  }));
  const long pgid = nlohmann::json::parse(slurp(record))["pgid"].get<long>();
  // A supervisor that cannot act: it dies while the engine is stopped (so the engine does not see
  // it go), then the engine is killed. Stopping the supervisor instead does not model this: when
  // the engine dies its group is orphaned with a stopped member, and the kernel's SIGHUP then ends
  // the tool before any resume.
  ::kill(engine, SIGSTOP);
  ::kill(static_cast<pid_t>(pgid), SIGKILL);
  ASSERT_TRUE(eventually(2000, [&] { return !running(pgid); }));
  kill_and_reap(engine);
  // The program itself dies with its supervisor (its own parent-death signal); its child does not.
  ASSERT_TRUE(eventually(2000, [&] { return !running(shell); })) << "the tool's shell outlived its supervisor";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(running(child)) << "the killed attempt's tool's child should still be there before the resume";

  ProcessResult r = run_attractor({"resume", run, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(running(child)) << "the resume ran the stage beside the killed attempt's tool";
  EXPECT_EQ(slurp(run + "/work/attempt-2/stdout.txt"), "second\n");
  ::kill(static_cast<pid_t>(-pgid), SIGKILL);
}

// Issue 42's seventh point: a tool holds no descriptor of attractor's (run.lock, run.log,
// events.jsonl, the journal), and every descriptor attractor itself has open is close-on-exec.
TEST(ProcessModelTest, AToolInheritsNoDescriptorAndEveryEngineDescriptorIsCloseOnExec) {
  ScratchDir dir;
  const std::string script = "ls -l /proc/$$/fd > " + dir.sub("tool-fds.txt") +
                             "; p=$$; "
                             "while [ \"$p\" -gt 1 ] && [ \"$(cat /proc/$p/comm)\" != attractor ]; do p=$(awk '{print "
                             "$4}' /proc/$p/stat); done; "
                             "for f in /proc/$p/fdinfo/*; do n=${f##*/}; echo \"$n $(awk '/^flags:/{print $2}' $f) "
                             "$(readlink /proc/$p/fd/$n)\"; "
                             "done > " +
                             dir.sub("engine-fds.txt");
  const std::string graph =
      "digraph p {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n"
      "  a [shape=parallelogram, tool_command=\"echo a\"]\n"
      "  work [shape=parallelogram, tool_command=" +
      nlohmann::json(script).dump() +
      "]\n"
      "  start -> a -> work -> done\n}\n";
  spit(dir.sub("p.dot"), graph);
  const std::string run = dir.sub("run");
  ProcessResult r = run_attractor({"run", dir.sub("p.dot"), "-q", "--logs-root", run});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const std::string tool_fds = slurp(dir.sub("tool-fds.txt"));
  for (const char* name : {"run.lock", "run.log", "events.jsonl", "checkpoint.journal", "checkpoint.json"}) {
    EXPECT_EQ(tool_fds.find(name), std::string::npos) << name << " reached the tool:\n" << tool_fds;
  }
  std::istringstream engine_fds(slurp(dir.sub("engine-fds.txt")));
  std::string line;
  int checked = 0;
  while (std::getline(engine_fds, line)) {
    std::istringstream fields(line);
    int fd = -1;
    std::string flags, target;
    fields >> fd >> flags >> target;
    // Descriptors the test harness leaked into attractor are not attractor's to mark.
    if (fd <= 2 || flags.empty() || !target.starts_with(run)) continue;
    ++checked;
    EXPECT_NE(std::stoul(flags, nullptr, 8) & 02000000UL, 0UL)
        << "fd " << fd << " (" << target << ") is not close-on-exec";
  }
  EXPECT_GE(checked, 2) << "run.log and events.jsonl should be open:\n" << slurp(dir.sub("engine-fds.txt"));
}

TEST(ProcessModelTest, ALockHeldForADeadOwnerDoesNotBlockAResume) {
  ScratchDir dir;
  spit(dir.sub("p.dot"), one_tool("echo hi"));
  const std::string run = dir.sub("run");
  ProcessResult first = run_attractor({"run", dir.sub("p.dot"), "-q", "--logs-root", run});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  int status = 0;
  ::waitpid(dead, &status, 0);
  // What a forked, not yet exec'd child of a killed engine used to leave: the lock held by a live
  // process while the file names the dead owner.
  spit(run + "/run.lock", std::to_string(dead) + "\n");
  pid_t holder = spawn_program("/usr/bin/flock", {run + "/run.lock", "sleep", "30"});
  ASSERT_TRUE(eventually(5000, [&] { return run_program({"flock", "-n", run + "/run.lock", "true"}).exit_code != 0; }));
  ProcessResult r = run_attractor({"resume", run});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("is being run by process"), std::string::npos) << r.err;
  kill_and_reap(holder);
}

TEST(ProcessModelTest, AMissingToolCwdNamesTheNodeAndTheAttribute) {
  ScratchDir dir;
  const std::string missing = dir.sub("no-such-dir");
  spit(dir.sub("p.dot"), one_tool("echo hi", ", tool_cwd=\"" + missing + "\""));
  ProcessResult r = run_attractor({"run", dir.sub("p.dot"), "-q", "--logs-root", dir.sub("run")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("node 'work': tool_cwd \"" + missing + "\" cannot be entered (No such file or directory)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("exited with code 127"), std::string::npos) << r.err;
}

// Issue 42's tenth point: SIGTERM after each checkpoint of a run, the last one included; the exit
// code is 130 exactly when the checkpoint left behind says `running`, else what its state says.
TEST(ProcessModelTest, TheExitCodeAfterSigtermSaysWhatTheCheckpointSays) {
  ScratchDir dir;
  spit(dir.sub("p.dot"),
       "digraph p {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n"
       "  a [shape=parallelogram, tool_command=\"echo a\"]\n"
       "  b [shape=parallelogram, tool_command=\"echo b\"]\n  start -> a -> b -> done\n}\n");
  std::set<std::string> states;
  for (int n = 1; n <= 6; ++n) {
    const std::string run = dir.sub("run" + std::to_string(n));
    ProcessResult r = run_program(
        {ATTRACTOR_FAULT_BINARY_PATH, "term", std::to_string(n), "run", dir.sub("p.dot"), "-q", "--logs-root", run});
    nlohmann::json checkpoint = nlohmann::json::parse(slurp(run + "/checkpoint.json"));
    const std::string state = checkpoint["state"];
    states.insert(state);
    const int expected = state == "running" ? 130 : state == "success" ? 0 : 1;
    EXPECT_EQ(r.exit_code, expected) << "SIGTERM at checkpoint " << n << ", state " << state << "\n" << r.err;
  }
  EXPECT_TRUE(states.count("running") && states.count("success")) << "the signals missed the run's two ends";
}

}  // namespace
}  // namespace attractor::hardening
