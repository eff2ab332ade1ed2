// `checkpoint.json` during a run (issue 36 point 9): a tool outside attractor that reads the file
// alone, without the journal, sees the state after the last stage while the checkpoint is small;
// with the journal forced (--checkpoint-rewrite-below 0) it sees the first snapshot and the
// journal holds the rest, and both ways a reader of snapshot + journal sees the same state.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attractor/run/checkpoint_journal.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;

/// A pipeline whose third stage copies `checkpoint.json` as it is at that moment.
std::string write_peeking_graph(const ScratchDir& dir) {
  std::string graph = dir.sub("peek.dot");
  spit(graph, R"(digraph peek { start [shape=Mdiamond] done [shape=Msquare]
    first [shape=parallelogram, tool_command="true"]
    second [shape=parallelogram, tool_command="true"]
    peek [shape=parallelogram, tool_command="cp \"$ATTRACTOR_RUN_DIR/checkpoint.json\" \"$ATTRACTOR_STAGE_DIR/seen.json\""]
    start -> first -> second -> peek -> done })");
  return graph;
}

TEST(CheckpointFreshnessTest, ASmallCheckpointIsCurrentAfterEveryStage) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult r = run_attractor({"run", write_peeking_graph(dir), "-q", "--logs-root", run});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json seen = nlohmann::json::parse(slurp(run + "/peek/attempt-1/seen.json"));
  EXPECT_EQ(seen["completed_nodes"], (nlohmann::json{"start", "first", "second"}));
  EXPECT_EQ(seen["next_node"], "peek");
  EXPECT_FALSE(fs::exists(run + "/" + std::string(kCheckpointJournalFile)));
}

TEST(CheckpointFreshnessTest, WithTheJournalForcedTheSnapshotLagsAndTheJournalHoldsTheRest) {
  ScratchDir dir;
  const std::string run = dir.sub("run");
  ProcessResult r = run_attractor(
      {"run", write_peeking_graph(dir), "-q", "--logs-root", run, "--checkpoint-rewrite-below", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json seen = nlohmann::json::parse(slurp(run + "/peek/attempt-1/seen.json"));
  EXPECT_EQ(seen["completed_nodes"], nlohmann::json::array());
  const nlohmann::json final_state = nlohmann::json::parse(slurp(run + "/checkpoint.json"));
  EXPECT_EQ(final_state["completed_nodes"], (nlohmann::json{"start", "first", "second", "peek"}));
}

}  // namespace
}  // namespace attractor
