// Issue 42 point 5, with a real `attractor` process: appended files (`events.jsonl`, `run.log`)
// hold whole lines only. A write cut short by a full disk (RLIMIT_FSIZE: writes fail with EFBIG
// part-way, as on a full disk) is undone; a torn last line left by a crash is cut off by the next
// writer and kept aside as `FILE.torn-OFFSET` before it appends.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

namespace fs = std::filesystem;

const std::string kGraph = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/kill_resume.dot";

/// The first line of `text` that is not a JSON object ("" when every line is one), and whether
/// `text` ends with a newline.
std::string first_bad_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) return line.empty() ? "<empty line>" : line;
  }
  if (!text.empty() && text.back() != '\n') return "<no newline at the end>";
  return "";
}

TEST(TornTailTest, AFullDiskLeavesNoTornEventLineAndResumeAppendsWholeLines) {
  ScratchDir dir;
  for (long limit = 600; limit <= 3900; limit += 300) {
    SCOPED_TRACE(limit);
    const std::string run = dir.sub("limited" + std::to_string(limit));
    ProcessResult full = run_attractor({"run", kGraph, "--simulate", "--logs-root", run, "-q"},
                                       {.file_size_limit = limit});
    EXPECT_EQ(full.signal, 0) << full.err;
    ASSERT_TRUE(fs::exists(run + "/events.jsonl"));
    EXPECT_EQ(first_bad_line(slurp(run + "/events.jsonl")), "");
    EXPECT_LE(fs::file_size(run + "/events.jsonl"), static_cast<std::uintmax_t>(limit));
    ProcessResult resumed = run_attractor({"resume", run, "-q", "--force"});
    EXPECT_EQ(resumed.signal, 0) << resumed.err;
    EXPECT_EQ(first_bad_line(slurp(run + "/events.jsonl")), "");
    const std::string log = slurp(run + "/run.log");
    EXPECT_TRUE(log.empty() || log.back() == '\n');
  }
}

TEST(TornTailTest, ResumeCutsATornLastLineOffAndKeepsItAside) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult killed = run_program(
      {ATTRACTOR_FAULT_BINARY_PATH, "kill", "3", "run", kGraph, "--simulate", "--logs-root", run, "-q"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.err;
  const std::string events = run + "/events.jsonl";
  const std::uintmax_t whole = fs::file_size(events);
  spit(events, slurp(events) + "{\"event\":\"StageSta");
  spit(run + "/run.log", slurp(run + "/run.log") + "2026-12-01T00:00:00Z info stage half");
  const std::uintmax_t log_whole = fs::file_size(run + "/run.log") -
                                   std::string("2026-12-01T00:00:00Z info stage half").size();

  ProcessResult resumed = run_attractor({"resume", run, "-q"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(first_bad_line(slurp(events)), "");
  EXPECT_EQ(slurp(events + ".torn-" + std::to_string(whole)), "{\"event\":\"StageSta");
  EXPECT_EQ(slurp(run + "/run.log.torn-" + std::to_string(log_whole)), "2026-12-01T00:00:00Z info stage half");
  const std::string log = slurp(run + "/run.log");
  EXPECT_EQ(log.find("info stage half"), std::string::npos);
  EXPECT_NE(resumed.err.find(events + ": its last line was torn (a crash or a full disk); cut off and kept in " +
                             events + ".torn-" + std::to_string(whole)),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find(run + "/run.log: its last line was torn"), std::string::npos) << resumed.err;
}

}  // namespace
}  // namespace attractor::hardening
