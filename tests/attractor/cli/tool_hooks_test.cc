// Tool call hooks (spec §9.7) through the real binary: a pre hook that refuses a call, a post hook
// that fails without changing the outcome, what the hooks are told, and context values reaching
// them only through the environment.

#include <filesystem>
#include <string>

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

// Graph-level hooks; `deploy` is refused by the pre hook, every call is logged by the post hook.
const char kGraph[] = R"(digraph hooks {
  graph [tool_hooks.pre="if [ \"$NODE_ID\" = deploy ]; then echo 'deploys are frozen' >&2; exit 3; fi; cat > \"$ATTRACTOR_STAGE_DIR/pre-input.json\"",
         tool_hooks.post="echo \"$TOOL_NAME $NODE_ID $EXIT_CODE $ATTRACTOR_CTX_EVIL\" > \"$ATTRACTOR_STAGE_DIR/post.txt\"; exit 1"]
  start  [shape=Mdiamond]
  build  [shape=parallelogram, tool_command="echo built"]
  deploy [shape=parallelogram, tool_command="touch \"$ATTRACTOR_RUN_DIR/deployed\""]
  done   [shape=Msquare]
  start -> build -> deploy -> done
}
)";

nlohmann::json json_file(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

TEST(ToolHooksTest, APreHookRefusesAndAPostHookFailureIsOnlyRecorded) {
  ScratchDir dir;
  const std::string graph = dir.sub("hooks.dot");
  spit(graph, kGraph);
  const std::string run = dir.sub("run");
  ProcessResult r = run_attractor(
      {"run", graph, "-q", "--logs-root", run, "--set", "evil=$(touch " + dir.sub("pwned") + ")"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("result: fail: stage `deploy` failed after 1 attempt and no failure route leads on: tool hook "
                       "`pre` refused the call: deploys are frozen\n"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(run + "/deployed"));                   // the refused tool never ran
  EXPECT_FALSE(fs::exists(run + "/deploy/attempt-1/post.txt"));  // nor did its post hook
  EXPECT_FALSE(fs::exists(dir.sub("pwned")));                    // context reached the hooks only as data

  nlohmann::json build = json_file(run + "/build/status.json");
  EXPECT_EQ(build["outcome"], "success");  // the failed post hook changed nothing
  EXPECT_EQ(build["hooks"]["post"]["ok"], false);
  EXPECT_EQ(build["hooks"]["post"]["exit_code"], 1);
  EXPECT_EQ(build["hooks"]["post"]["message"], "exit code 1");
  EXPECT_EQ(build["hooks"]["pre"]["ok"], true);
  EXPECT_EQ(slurp(run + "/build/attempt-1/post.txt"), "shell build 0 $(touch " + dir.sub("pwned") + ")\n");
  nlohmann::json told = json_file(run + "/build/attempt-1/pre-input.json");
  EXPECT_EQ(told, (nlohmann::json{{"hook", "pre"},
                                  {"tool", "shell"},
                                  {"node", "build"},
                                  {"stage_dir", run + "/build/attempt-1"},
                                  {"input", {{"command", "echo built"}}}}));
  EXPECT_EQ(json_file(run + "/build/attempt-1/hook-post.json")["exit_code"], 0);

  nlohmann::json deploy = json_file(run + "/deploy/status.json");
  EXPECT_EQ(deploy["hooks"]["pre"]["ok"], false);
  EXPECT_EQ(deploy["hooks"]["pre"]["exit_code"], 3);
  EXPECT_EQ(slurp(run + "/deploy/attempt-1/hook-pre.stderr.txt"), "deploys are frozen\n");
}

TEST(ToolHooksTest, ANodeHookReplacesTheGraphsAndHooksAreKnownAttributes) {
  ScratchDir dir;
  std::string text = kGraph;
  text.replace(
      text.find("tool_command=\"echo built\""), 25,
      "tool_command=\"echo built\", tool_hooks.post=\"echo node-level > \\\"$ATTRACTOR_STAGE_DIR/post.txt\\\"\"");
  const std::string graph = dir.sub("hooks.dot");
  spit(graph, text);
  ProcessResult v = run_attractor({"validate", graph, "--strict"});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  const std::string run = dir.sub("run");
  run_attractor({"run", graph, "-q", "--logs-root", run});
  EXPECT_EQ(slurp(run + "/build/attempt-1/post.txt"), "node-level\n");
  EXPECT_EQ(json_file(run + "/build/status.json")["hooks"]["post"]["ok"], true);
}

}  // namespace
}  // namespace attractor
