// `--log-level` and ATTRACTOR_LOG_LEVEL with the real binary: parsing, precedence, the default
// console output, and the run.log every run writes (docs/run-directory.md, 2.4).

#include <csignal>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/cli/cli.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::slurp;

const std::string kSimple = "graphs/simple.dot";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

ProcessResult run_simple(const std::string& run_dir, std::vector<std::string> extra = {},
                         std::vector<std::string> env = {}) {
  std::vector<std::string> args = {"run", kSimple, "--backend", "simulate", "-q", "--logs-root", run_dir};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_attractor(args, {.env = std::move(env)});
}

TEST(LogLevelTest, EveryCommandTakesTheFlag) {
  for (const CliCommand& c : cli_commands()) {
    ProcessResult help = run_attractor({std::string(c.name), "--help"});
    EXPECT_EQ(help.exit_code, 0) << c.name;
    EXPECT_TRUE(contains(help.out, "--log-level")) << c.name << "\n" << help.out;
  }
}

TEST(LogLevelTest, AnUnknownLevelIsAUsageError) {
  ProcessResult flag = run_attractor({"validate", kSimple, "--log-level", "loud"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_TRUE(contains(flag.err, "--log-level")) << flag.err;
  ProcessResult env = run_attractor({"validate", kSimple}, {.env = {"ATTRACTOR_LOG_LEVEL=loud"}});
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_TRUE(contains(env.err, "--log-level")) << env.err;
}

TEST(LogLevelTest, TheDefaultLeavesTheConsoleAsItWas) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult r = run_simple(run);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // --quiet and success: nothing at all
}

TEST(LogLevelTest, InfoShowsTheStagesOnStderr) {
  ScratchDir dir;
  ProcessResult r = run_simple(dir.sub("run"), {"--log-level", "info"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "\nattractor: info: stage run_tests started: attempt 1 of 1, type codergen\n")) << r.err;
  EXPECT_TRUE(contains(r.err, "\nattractor: info: stage report finished: success in ")) << r.err;
}

TEST(LogLevelTest, TheEnvironmentSetsTheLevelAndTheFlagWins) {
  ScratchDir dir;
  ProcessResult env = run_simple(dir.sub("env"), {}, {"ATTRACTOR_LOG_LEVEL=info"});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_TRUE(contains(env.err, "attractor: info: stage run_tests started")) << env.err;

  ProcessResult quieter = run_simple(dir.sub("quieter"), {"--log-level", "warn"}, {"ATTRACTOR_LOG_LEVEL=debug"});
  EXPECT_EQ(quieter.exit_code, 0) << quieter.err;
  EXPECT_FALSE(contains(quieter.err, "attractor: info:")) << quieter.err;
  EXPECT_FALSE(contains(quieter.err, "attractor: debug:")) << quieter.err;

  ProcessResult louder = run_simple(dir.sub("louder"), {"--log-level", "debug"}, {"ATTRACTOR_LOG_LEVEL=error"});
  EXPECT_TRUE(contains(louder.err, "attractor: debug: stage run_tests: LLM backend simulation")) << louder.err;
}

TEST(LogLevelTest, ARunWritesRunLogWhateverTheConsoleShows) {
  ScratchDir dir;
  for (const char* level : {"warn", "off"}) {
    SCOPED_TRACE(level);
    const std::string run = dir.sub(level);
    ASSERT_EQ(run_simple(run, {"--log-level", level}).exit_code, 0);
    const std::string log = slurp(run + "/run.log");
    EXPECT_TRUE(contains(log, "Z [info] run ")) << log;
    EXPECT_TRUE(contains(log, " started: pipeline Simple, run directory " + run + "\n")) << log;
    EXPECT_TRUE(contains(log, "Z [info] stage report finished: success in ")) << log;
    EXPECT_TRUE(contains(log, " finished: success in ")) << log;
    EXPECT_FALSE(contains(log, "[debug]")) << log;
  }
  const std::string run = dir.sub("debug");
  ASSERT_EQ(run_simple(run, {"--log-level", "debug"}).exit_code, 0);
  EXPECT_TRUE(contains(slurp(run + "/run.log"), "Z [debug] stage run_tests: LLM backend simulation\n"));
}

TEST(LogLevelTest, AResumeContinuesTheRunLog) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  const std::string graph = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/kill_resume.dot";
  ProcessResult killed = hardening::run_program(
      {ATTRACTOR_FAULT_BINARY_PATH, "kill", "3", "run", graph, "--simulate", "--logs-root", run, "-q"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.err;
  ProcessResult resumed = run_attractor({"resume", run, "-q"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const std::string log = slurp(run + "/run.log");
  const auto started = log.find(" started: pipeline kill_resume");
  const auto again = log.find(" resumed at node ");
  ASSERT_NE(started, std::string::npos) << log;
  ASSERT_NE(again, std::string::npos) << log;
  EXPECT_LT(started, again) << log;
  // The killed process may or may not have logged its own visit to work before dying; the
  // resumed process must log the retry after its "resumed" line.
  EXPECT_NE(log.find("[info] stage work finished: fail in ", again), std::string::npos) << log;
  const auto last = log.find("[info] run ", again);
  ASSERT_NE(last, std::string::npos) << log;
  EXPECT_NE(log.find(" finished: success in ", last), std::string::npos) << log;
}

}  // namespace
}  // namespace attractor
