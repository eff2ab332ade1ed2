// A stage file that cannot be written stops the run with exit 3, for every handler that writes
// stage files: the real binary runs on attractor_checkpoint_fault's disk with
// `fail-write:NODE/FILE`, which makes that one write fail like a full disk. The run names the
// file, leaves the last checkpoint valid (read the way resume reads it, without a temp file), and
// nothing outside the process ran on what was not written. Resuming on a working disk finishes.
// tools/check_stage_writes.py (ctest stage_writes) checks that no handler writes around the disk.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_directory.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::BinaryRun;
using testing::run_binary;
using testing::ScratchDir;
using Env = std::vector<std::pair<std::string, std::string>>;

class StageWriteFailureTest : public ::testing::Test {
 protected:
  std::string run_dir() const { return dir_.sub("run"); }

  /// Runs `dot` with the write of `{run}/{failing}` failing; `args` go after the run directory.
  BinaryRun run_failing(const std::string& dot, const std::string& failing, std::vector<std::string> args = {},
                        const Env& env = {}) {
    write_text_file(dir_.sub("g.dot"), dot);
    std::vector<std::string> argv = {"fail-write:" + failing, "1",       "run", dir_.sub("g.dot"),
                                     "--logs-root",           run_dir(), "-q"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_binary(argv, env, dir_, ATTRACTOR_FAULT_BINARY_PATH);
  }

  /// Exit 3 naming the file, and the checkpoint of `completed` valid and still running.
  void expect_stopped(const BinaryRun& r, const std::string& failing, const std::vector<std::string>& completed) {
    EXPECT_EQ(r.code, 3) << r.err;
    const std::string message = "cannot write " + run_dir() + "/" + failing + ": No space left on device";
    EXPECT_NE(r.err.find("attractor: runtime error: " + message), std::string::npos) << r.err;
    nlohmann::json saved = read_checkpoint_document(run_dir(), posix_run_disk());
    EXPECT_EQ(saved["state"], "running");
    EXPECT_EQ(saved["completed_nodes"], nlohmann::json(completed));
    EXPECT_FALSE(fs::exists(run_dir() + "/checkpoint.json.tmp"));
  }

  /// Resumes on the real disk; the run succeeds with `node` completed.
  void expect_resume_finishes(const std::string& node, const Env& env = {}) {
    BinaryRun resumed = run_binary({"resume", run_dir(), "-q"}, env, dir_);
    EXPECT_EQ(resumed.code, 0) << resumed.err;
    nlohmann::json saved = read_checkpoint_document(run_dir(), posix_run_disk());
    EXPECT_EQ(saved["state"], "success");
    const nlohmann::json& done = saved["completed_nodes"];
    EXPECT_NE(std::find(done.begin(), done.end(), node), done.end()) << done.dump();
  }

  ScratchDir dir_;
};

TEST_F(StageWriteFailureTest, Codergen) {
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    work [prompt="Write the code"]; start -> work -> done })";
  for (const char* file : {"work/prompt.md", "work/response.md"}) {
    SCOPED_TRACE(file);
    fs::remove_all(run_dir());
    expect_stopped(run_failing(dot, file, {"--simulate"}), file, {"start"});
  }
  expect_resume_finishes("work");
}

TEST_F(StageWriteFailureTest, WaitHuman) {
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    gate [shape=hexagon, label="Ship it?"]; start -> gate; gate -> done [label="Yes"] })";
  for (const char* file : {"gate/prompt.md", "gate/response.md"}) {
    SCOPED_TRACE(file);
    fs::remove_all(run_dir());
    expect_stopped(run_failing(dot, file, {"--auto-approve"}), file, {"start"});
  }
  BinaryRun resumed = run_binary({"resume", run_dir(), "-q", "--auto-approve"}, {}, dir_);
  EXPECT_EQ(resumed.code, 0) << resumed.err;
}

TEST_F(StageWriteFailureTest, ToolDoesNotStartWithoutItsContextFile) {
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    check [shape=parallelogram, tool_command="touch \"$ATTRACTOR_RUN_DIR/ran\""]; start -> check -> done })";
  expect_stopped(run_failing(dot, "check/attempt-1/context.json"), "check/attempt-1/context.json", {"start"});
  EXPECT_FALSE(fs::exists(run_dir() + "/ran"));
  expect_resume_finishes("check");
  EXPECT_TRUE(fs::exists(run_dir() + "/ran"));
}

TEST_F(StageWriteFailureTest, ToolHookDoesNotStartWithoutItsInputFile) {
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    check [shape=parallelogram, tool_command="true", tool_hooks.pre="touch \"$ATTRACTOR_STAGE_DIR/../hooked\""]
    start -> check -> done })";
  expect_stopped(run_failing(dot, "check/attempt-1/hook-pre.json"), "check/attempt-1/hook-pre.json", {"start"});
  EXPECT_FALSE(fs::exists(run_dir() + "/hooked"));
  expect_resume_finishes("check");
}

TEST_F(StageWriteFailureTest, FanIn) {
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    fan [shape=component]; a [prompt="Try A"]; b [prompt="Try B"]
    join [shape=tripleoctagon, prompt="Pick the better candidate"]
    start -> fan; fan -> a; fan -> b; a -> join; b -> join; join -> done })";
  for (const char* file : {"join/prompt.md", "join/response.md"}) {
    SCOPED_TRACE(file);
    fs::remove_all(run_dir());
    expect_stopped(run_failing(dot, file, {"--simulate"}), file, {"start", "fan", "a", "b"});
  }
  expect_resume_finishes("join");
}

TEST_F(StageWriteFailureTest, ManagerLoopSteering) {
  const std::string child = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/child_steered.dot";
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    manager [shape=house, stack.child_dotfile=")" +
                          child + R"(", manager.actions="observe,steer,wait",
             manager.instructions="Focus", manager.poll_interval="20ms"]
    start -> manager -> done })";
  BinaryRun r = run_failing(dot, "steering.md");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("attractor: runtime error: cannot write " + run_dir() + "/manager/child/"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("/steering.md: No space left on device"), std::string::npos) << r.err;
  nlohmann::json saved = read_checkpoint_document(run_dir(), posix_run_disk());
  EXPECT_EQ(saved["state"], "running");
  EXPECT_EQ(saved["completed_nodes"], (nlohmann::json{"start"}));
  expect_resume_finishes("manager");
}

TEST_F(StageWriteFailureTest, CliAgentDoesNotStartWithoutItsPrompt) {
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    code [llm_provider="cli:echoer", prompt="Fix it"]; start -> code -> done })";
  const Env env = {{"ATTRACTOR_CLI_COMMAND_ECHOER", "touch \"$ATTRACTOR_STAGE_DIR/../../ran\"; echo fixed"}};
  expect_stopped(run_failing(dot, "code/attempt-1/agent_prompt.md", {}, env), "code/attempt-1/agent_prompt.md",
                 {"start"});
  EXPECT_FALSE(fs::exists(run_dir() + "/ran"));
  expect_resume_finishes("code", env);
  EXPECT_TRUE(fs::exists(run_dir() + "/ran"));
}

TEST_F(StageWriteFailureTest, BuiltInAgent) {
  fs::create_directories(dir_.sub("proj"));
  const std::string dot = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]
    fix [llm_provider=agent, llm_model="gpt-test", workdir=")" +
                          dir_.sub("proj") + R"(", prompt="Say done"]
    start -> fix -> done })";
  for (const char* file : {"fix/transcript.jsonl", "fix/agent.json"}) {
    SCOPED_TRACE(file);
    fs::remove_all(run_dir());
    testing::FakeLlmServer openai;
    const Env env = {{"OPENAI_BASE_URL", openai.url() + "/v1"}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}};
    expect_stopped(run_failing(dot, file, {}, env), file, {"start"});
    EXPECT_EQ(openai.requests().size(), 1u);
  }
  testing::FakeLlmServer openai;
  expect_resume_finishes("fix", {{"OPENAI_BASE_URL", openai.url() + "/v1"}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}});
}

}  // namespace
}  // namespace attractor
