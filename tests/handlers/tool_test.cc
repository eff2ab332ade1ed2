// The tool handler with real subprocesses: output files, exit codes, timeouts that kill the whole
// process group, and context passed only through environment variables.

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/handler_test_support.h"
#include "handlers/tool.h"

namespace attractor {
namespace {

/// The state letter of /proc/PID/stat ('Z' for a zombie), or 0 when the process is gone.
char process_state(pid_t pid) {
  try {
    std::string stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
    std::size_t close = stat.rfind(')');
    return close + 2 < stat.size() ? stat[close + 2] : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

Graph tool_graph(const std::string& command, const std::string& timeout = "") {
  Graph g;
  Vertex v = g.add_node("t");
  g.node(v).set("shape", "parallelogram");
  g.node(v).set("tool_command", command);
  if (!timeout.empty()) g.node(v).set("timeout", timeout);
  g.data().set("goal", "the goal");
  return g;
}

Outcome run_tool(testing::StageFixture& f, const Graph& g, Context& c) {
  StageEnv env = f.env("t");
  env.timeout_ms = g.node("t")->timeout_ms();
  ToolHandler h;
  return h.execute(*g.node("t"), c, g, env);
}

TEST(ToolHandlerTest, CapturesStdoutStderrAndOutput) {
  testing::StageFixture f;
  Graph g = tool_graph("echo hello; echo oops >&2");
  Context c;
  Outcome o = run_tool(f, g, c);
  EXPECT_EQ(o.status, StageStatus::kSuccess);
  EXPECT_EQ(o.context_updates["tool.output"], "hello\n");
  EXPECT_EQ(o.context_updates["tool.exit_code"], 0);
  EXPECT_EQ(read_text_file(f.root() + "/t/stdout.txt"), "hello\n");
  EXPECT_EQ(read_text_file(f.root() + "/t/stderr.txt"), "oops\n");
  EXPECT_EQ(o.notes, "Tool completed: echo hello; echo oops >&2");
}

TEST(ToolHandlerTest, NonZeroExitIsFailWithCode) {
  testing::StageFixture f;
  Graph g = tool_graph("echo bad >&2; exit 7");
  Context c;
  Outcome o = run_tool(f, g, c);
  EXPECT_EQ(o.status, StageStatus::kFail);
  EXPECT_EQ(o.failure_reason, "tool exited with code 7");
  EXPECT_EQ(o.notes, "bad\n");
  EXPECT_EQ(o.context_updates["tool.exit_code"], 7);
}

TEST(ToolHandlerTest, MissingCommandIsTerminal) {
  testing::StageFixture f;
  Graph g = tool_graph("");
  Context c;
  Outcome o = run_tool(f, g, c);
  EXPECT_EQ(o.failure_reason, "No tool_command specified");
  EXPECT_EQ(o.category, ErrorCategory::kTerminal);
}

TEST(ToolHandlerTest, OutputIsTruncated) {
  testing::StageFixture f;
  Graph g = tool_graph("head -c 20000 /dev/zero | tr '\\0' x");
  Context c;
  Outcome o = run_tool(f, g, c);
  EXPECT_EQ(o.context_updates["tool.output"].get<std::string>().size(), kToolOutputLimit);
  EXPECT_EQ(std::filesystem::file_size(f.root() + "/t/stdout.txt"), 20000u);
}

TEST(ToolHandlerTest, TimeoutKillsTheWholeProcessGroup) {
  testing::StageFixture f;
  std::string pidfile = f.root() + "/child.pid";
  Graph g = tool_graph("sleep 30 & echo $! > " + pidfile + "; wait", "300ms");
  Context c;
  auto started = std::chrono::steady_clock::now();
  Outcome o = run_tool(f, g, c);
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(o.status, StageStatus::kFail);
  EXPECT_EQ(o.failure_reason.rfind("tool timed out after 300ms", 0), 0u) << o.failure_reason;
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  pid_t child = std::stoi(read_text_file(pidfile));
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = ::kill(child, 0) != 0 || process_state(child) == 'Z';
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "background child " << child << " survived the timeout";
}

TEST(ToolHandlerTest, CancellationStopsTheCommand) {
  testing::StageFixture f;
  Graph g = tool_graph("sleep 30");
  Context c;
  StageEnv env = f.env("t");
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    env.cancel.cancel();
  });
  ToolHandler h;
  Outcome o = h.execute(*g.node("t"), c, g, env);
  canceller.join();
  EXPECT_EQ(o.failure_reason, "tool cancelled: sleep 30");
}

TEST(ToolHandlerTest, ContextReachesTheCommandOnlyThroughEnvironment) {
  testing::StageFixture f;
  std::string marker = f.root() + "/pwned";
  // A value full of shell syntax: if it were pasted into the command line it would create the file.
  std::string evil = "$(touch " + marker + "); `touch " + marker + "`; ' \" && touch " + marker;
  Graph g = tool_graph("printf '%s' \"$ATTRACTOR_CTX_CONTEXT_USER_INPUT\"");
  Context c;
  c.set("context.user_input", evil);
  Outcome o = run_tool(f, g, c);
  EXPECT_EQ(o.status, StageStatus::kSuccess);
  EXPECT_EQ(o.context_updates["tool.output"], evil);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(ToolHandlerTest, EnvironmentNamingAndRunVariables) {
  EXPECT_EQ(context_env_name("context.user_input"), "ATTRACTOR_CTX_CONTEXT_USER_INPUT");
  EXPECT_EQ(context_env_name("graph.goal"), "ATTRACTOR_CTX_GRAPH_GOAL");
  EXPECT_EQ(context_env_name("a-b c"), "ATTRACTOR_CTX_A_B_C");
  testing::StageFixture f;
  Graph g = tool_graph(
      "echo \"$ATTRACTOR_NODE_ID|$ATTRACTOR_GOAL|$ATTRACTOR_CTX_N|$(basename $ATTRACTOR_STAGE_DIR)\"; "
      "test -f \"$ATTRACTOR_CONTEXT_FILE\"");
  Context c;
  c.set("n", 3);
  Outcome o = run_tool(f, g, c);
  EXPECT_EQ(o.context_updates["tool.output"], "t|the goal|3|t\n");
}

}  // namespace
}  // namespace attractor
