// One load per run: `attractor run` reads its pipeline file once (the run directory's name comes
// from that load) and reads nothing back from the run directory it writes; `attractor resume`
// reads the manifest, the checkpoint and the pipeline file once each and hands the checkpoint to
// the engine. Counted in-process through the reading interfaces: the run disk (a forwarding disk
// over the real one) and the input-file reader.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/cli/cli.h"
#include "attractor/run/checkpoint_journal.h"
#include "support/counting_input_files.h"
#include "support/counting_run_disk.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::CountingInputFiles;
using testing::CountingRunDisk;

const std::string kGraph = std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot";

/// Runs a `run`/`resume` command function in-process with `args` after the command name.
int call(int (*command)(int, char**, RunDisk&, InputFileReader&), const std::string& name,
         std::vector<std::string> args, RunDisk& disk, InputFileReader& files) {
  args.insert(args.begin(), "attractor " + name);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return command(static_cast<int>(args.size()), argv.data(), disk, files);
}

/// The reads of files directly in `run_dir` whose name is one of the run's records.
std::map<std::string, int> record_reads(const CountingRunDisk& disk, const std::string& run_dir) {
  std::map<std::string, int> out;
  for (const auto& [path, count] : disk.reads()) {
    if (fs::path(path).parent_path() == fs::path(run_dir).lexically_normal()) out[fs::path(path).filename()] = count;
  }
  return out;
}

TEST(RunReadsTest, ARunReadsItsPipelineOnceAndNothingOfItsRunDirectory) {
  hardening::ScratchDir dir;
  const std::string run = dir.sub("run");
  CountingRunDisk disk;
  CountingInputFiles files;
  ASSERT_EQ(call(run_run_command, "run", {kGraph, "--simulate", "-q", "--logs-root", run}, disk, files), 0);
  EXPECT_EQ(files.reads(), (std::map<std::string, int>{{kGraph, 1}}));
  EXPECT_EQ(record_reads(disk, run), (std::map<std::string, int>{}));
  EXPECT_TRUE(fs::exists(run + "/checkpoint.json"));
}

TEST(RunReadsTest, AResumeReadsManifestCheckpointAndPipelineOnceEach) {
  hardening::ScratchDir dir;
  const std::string run = dir.sub("run");
  {
    CountingRunDisk disk;
    CountingInputFiles files;
    ASSERT_EQ(call(run_run_command, "run", {kGraph, "--simulate", "-q", "--logs-root", run, "--max-total-tokens", "50"},
                   disk, files),
              4);
  }
  std::map<std::string, int> expected = {{"checkpoint.json", 1}, {"events.jsonl", 1}, {"manifest.json", 1}};
  if (fs::exists(fs::path(run) / kCheckpointJournalFile)) expected[std::string(kCheckpointJournalFile)] = 1;
  CountingRunDisk disk;
  CountingInputFiles files;
  ASSERT_EQ(call(run_resume_command, "resume", {run, "-q", "--max-total-tokens", "500"}, disk, files), 0);
  EXPECT_EQ(files.reads(), (std::map<std::string, int>{{kGraph, 1}}));
  // events.jsonl: the token usage of the calls before the resume (Engine::Impl::restore_usage).
  EXPECT_EQ(record_reads(disk, run), expected);
}

}  // namespace
}  // namespace attractor
