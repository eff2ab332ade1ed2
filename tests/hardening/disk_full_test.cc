// Disk full and read-only run directories, with a real `attractor` process: a file-size limit
// (RLIMIT_FSIZE, so writes fail with EFBIG like on a full disk) or a read-only bind mount. The run
// stops with exit 3 and a message naming the file and the error, the last checkpoint written stays
// valid, and resuming once the disk is writable again finishes exactly like an uninterrupted run.
// The same for a checkpoint write made to fail by the test executable attractor_checkpoint_fault.
// Mid-run the checkpoint is the snapshot plus its journal, so it is read the way resume reads it.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/posix_run_disk.h"
#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

namespace fs = std::filesystem;

const std::string kGraph = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/kill_resume.dot";

nlohmann::json saved_checkpoint(const std::string& run_dir) {
  return read_checkpoint_document(run_dir, posix_run_disk());
}

/// The snapshot and the journal, as bytes: what a refused resume must leave as it found it.
std::string checkpoint_bytes(const std::string& run_dir) {
  const std::string journal = run_dir + "/" + std::string(kCheckpointJournalFile);
  return slurp(run_dir + "/checkpoint.json") + "\n--journal--\n" + (fs::exists(journal) ? slurp(journal) : "");
}

nlohmann::json comparable(const std::string& run_dir) {
  nlohmann::json j = nlohmann::json::parse(slurp(run_dir + "/checkpoint.json"));
  for (const char* k : {"timestamp", "timestamp_ms", "run_id", "usage"}) j.erase(k);
  j["context"].erase("internal.run_id");
  return j;
}

TEST(DiskFullTest, FileSizeLimitStopsTheRunWithExitThreeAndAnIntactCheckpoint) {
  ScratchDir dir;
  ASSERT_EQ(run_attractor({"run", kGraph, "--simulate", "--logs-root", dir.sub("reference"), "-q"}).exit_code, 0);
  const nlohmann::json expected = comparable(dir.sub("reference"));

  for (long limit : {1024L, 2048L}) {
    SCOPED_TRACE(limit);
    const std::string run = dir.sub("limited" + std::to_string(limit));
    ProcessResult full = run_attractor({"run", kGraph, "--simulate", "--logs-root", run, "-q"},
                                       {.file_size_limit = limit});
    EXPECT_EQ(full.exit_code, 3) << full.err;
    const bool names_the_file =
        full.err.find("attractor: runtime error: cannot write " + run + "/") != std::string::npos ||
        full.err.find("attractor: runtime error: cannot append " + run + "/") != std::string::npos;
    EXPECT_TRUE(names_the_file) << full.err;
    EXPECT_NE(full.err.find(": File too large"), std::string::npos) << full.err;
    EXPECT_FALSE(fs::exists(run + "/checkpoint.json.tmp"));
    EXPECT_EQ(saved_checkpoint(run)["state"], "running");
    const std::string before = checkpoint_bytes(run);

    // Still full: resume stops again, leaving the checkpoint as it was. (With limit 1024 the next
    // stage is the parallel block: a branch's failed write used to unwind past joinable threads and
    // abort the process with std::terminate instead of exiting 3.)
    ProcessResult again = run_attractor({"resume", run, "-q"}, {.file_size_limit = 1});
    EXPECT_EQ(again.signal, 0) << again.err;
    EXPECT_EQ(again.exit_code, 3) << again.err;
    EXPECT_EQ(checkpoint_bytes(run), before);

    ProcessResult resumed = run_attractor({"resume", run, "-q"});
    EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_EQ(comparable(run), expected);
  }
}

TEST(DiskFullTest, AnInjectedCheckpointWriteFailureExitsThreeWithThePreviousCheckpointIntact) {
  ScratchDir dir;
  ASSERT_EQ(run_attractor({"run", kGraph, "--simulate", "--logs-root", dir.sub("reference"), "-q"}).exit_code, 0);
  // The fourth checkpoint (initial, start, prep, then the one recording work) fails like a full
  // disk: a rewrite of the small checkpoint by default, the third record appended to the journal
  // after the initial snapshot when every save after the first is a journal record.
  for (const char* rewrite_below : {"65536", "0"}) {
    SCOPED_TRACE(rewrite_below);
    const std::string run = dir.sub(std::string("failed") + rewrite_below);
    ProcessResult failed = run_program({ATTRACTOR_FAULT_BINARY_PATH, "fail", "4", "run", kGraph, "--simulate",
                                        "--logs-root", run, "-q", "--checkpoint-rewrite-below", rewrite_below});
    EXPECT_EQ(failed.signal, 0) << failed.err;
    EXPECT_EQ(failed.exit_code, 3) << failed.err;
    const std::string write = std::string(rewrite_below) == "0" ? "append " + run + "/checkpoint.journal"
                                                                : "write " + run + "/checkpoint.json.tmp";
    EXPECT_NE(failed.err.find("attractor: runtime error: cannot " + write + ": No space left on device"),
              std::string::npos)
        << failed.err;
    nlohmann::json saved = saved_checkpoint(run);
    EXPECT_EQ(saved["state"], "running");
    EXPECT_EQ(saved["completed_nodes"], (nlohmann::json{"start", "prep"}));
    EXPECT_FALSE(fs::exists(run + "/checkpoint.json.tmp"));

    ProcessResult resumed = run_attractor({"resume", run, "-q"});
    EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_EQ(comparable(run), comparable(dir.sub("reference")));
  }
}

bool can_bind_mount() {
  return run_program({"unshare", "-m", "sh", "-c", "mount --bind -o ro / /mnt"}, {.timeout_seconds = 10}).exit_code ==
         0;
}

TEST(ReadOnlyRunDirTest, ResumeIntoAReadOnlyRunDirectoryStopsWithExitThree) {
  if (!can_bind_mount()) GTEST_SKIP() << "needs unshare -m and mount (root with CAP_SYS_ADMIN)";
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult killed = run_program(
      {ATTRACTOR_FAULT_BINARY_PATH, "kill", "4", "run", kGraph, "--simulate", "--logs-root", run, "-q"});
  ASSERT_EQ(killed.signal, SIGKILL);
  const std::string before = checkpoint_bytes(run);

  // chmod does not stop root, so the directory is made read-only with a private bind mount.
  ProcessResult ro = run_program({"unshare", "-m", "sh", "-c",
                                  "mount --bind -o ro \"$0\" \"$0\" && exec \"$1\" resume \"$0\" -q", run,
                                  ATTRACTOR_BINARY_PATH});
  EXPECT_EQ(ro.exit_code, 3) << ro.err;
  EXPECT_NE(ro.err.find("Read-only file system"), std::string::npos) << ro.err;
  EXPECT_EQ(checkpoint_bytes(run), before);

  ProcessResult resumed = run_attractor({"resume", run, "-q"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

TEST(ReadOnlyRunDirTest, RunUnderAReadOnlyLogsRootStopsWithExitThree) {
  if (!can_bind_mount()) GTEST_SKIP() << "needs unshare -m and mount (root with CAP_SYS_ADMIN)";
  ScratchDir dir;
  fs::create_directories(dir.sub("ro"));
  ProcessResult ro = run_program(
      {"unshare", "-m", "sh", "-c",
       "mount --bind -o ro \"$0\" \"$0\" && exec \"$1\" run \"$2\" --simulate --logs-root \"$0/run\" -q", dir.sub("ro"),
       ATTRACTOR_BINARY_PATH, kGraph});
  EXPECT_EQ(ro.exit_code, 3) << ro.err;
  EXPECT_NE(ro.err.find("Read-only file system"), std::string::npos) << ro.err;
  EXPECT_FALSE(fs::exists(dir.sub("ro/run")));
}

bool can_mount_tmpfs() {
  return run_program({"unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"}, {.timeout_seconds = 10})
             .exit_code == 0;
}

// Issue 36 point 7: a tool fills the disk, so the stage fails and then its files cannot be
// written. The console, `status`, `status --json` and events.jsonl tell the same story (the
// write that failed, the run resumable from the stage), and the resume finishes once there is room.
TEST(DiskFullTest, AFullDiskTellsOneStoryOnTheConsoleInStatusAndInEvents) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "needs unshare -m and mount (root with CAP_SYS_ADMIN)";
  ScratchDir dir;
  fs::create_directories(dir.sub("mnt"));
  spit(dir.sub("fill.dot"),
       "digraph fill { start [shape=Mdiamond] done [shape=Msquare]\n"
       "  fill [shape=parallelogram, tool_command=\"head -c 3000000 /dev/zero > big.bin\"]\n"
       "  start -> fill -> done }\n");
  const std::string script =
      "mount -t tmpfs -o size=2m tmpfs \"$0\" && cd \"$0\" || exit 99\n"
      "\"$1\" run \"$2\" --logs-root \"$0/run\" -q; echo \"run exit $?\"\n"
      "\"$1\" status \"$0/run\"; \"$1\" status --json \"$0/run\" > \"$0/../status.json\"\n"
      "tail -n 1 \"$0/run/events.jsonl\" > \"$0/../last-event.json\"\n"
      "rm -f big.bin && mount -o remount,size=16m \"$0\" && \"$1\" resume \"$0/run\" -q; echo \"resume exit $?\"";
  ProcessResult r = run_program(
      {"unshare", "-m", "sh", "-c", script, dir.sub("mnt"), ATTRACTOR_BINARY_PATH, dir.sub("fill.dot")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string story = "cannot write " + dir.sub("mnt") + "/run/fill/status.json: No space left on device";
  EXPECT_NE(r.out.find("run exit 3\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("attractor: runtime error: " + story +
                       "\nthe run stopped; its last checkpoint (it goes on "
                       "with `fill`) is intact. Free space or make " +
                       dir.sub("mnt") + "/run writable, then: attractor resume " + dir.sub("mnt") + "/run\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("pipeline failed"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("status:   interrupted\nreason:   " + story + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("next:     fill\n"), std::string::npos) << r.out;
  const nlohmann::json status = nlohmann::json::parse(slurp(dir.sub("status.json")));
  EXPECT_EQ(status["status"], "interrupted");
  EXPECT_EQ(status["reason"], story);
  const nlohmann::json last = nlohmann::json::parse(slurp(dir.sub("last-event.json")));
  EXPECT_EQ(last["event"], "PipelineInterrupted");
  EXPECT_EQ(last["error"], story);
  EXPECT_EQ(last["next_node"], "fill");
  EXPECT_NE(r.out.find("resume exit 0\n"), std::string::npos) << r.out << r.err;
}

TEST(ReadOnlyRunDirTest, StatusOfARunStoppedByAReadOnlyDirectorySaysSo) {
  if (!can_bind_mount()) GTEST_SKIP() << "needs unshare -m and mount (root with CAP_SYS_ADMIN)";
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult killed = run_program(
      {ATTRACTOR_FAULT_BINARY_PATH, "kill", "4", "run", kGraph, "--simulate", "--logs-root", run, "-q"});
  ASSERT_EQ(killed.signal, SIGKILL);
  const std::string script =
      "mount --bind -o ro \"$0\" \"$0\" || exit 99\n"
      "\"$1\" resume \"$0\" -q; echo \"resume exit $?\"; \"$1\" status \"$0\"";
  ProcessResult ro = run_program({"unshare", "-m", "sh", "-c", script, run, ATTRACTOR_BINARY_PATH});
  EXPECT_NE(ro.err.find("Read-only file system"), std::string::npos) << ro.err;
  EXPECT_NE(ro.out.find("resume exit 3\n"), std::string::npos) << ro.out;
  EXPECT_NE(ro.out.find("status:   interrupted\nreason:   the run directory is not writable: Read-only file system\n"),
            std::string::npos)
      << ro.out;
}

}  // namespace
}  // namespace attractor::hardening
