// The `cli` backend with small fake agent scripts placed first on PATH: command templates and
// model flags, stdin prompt, Claude Code JSON and plain-text replies, exit codes, the process
// group killed on timeout, and a status.json written by the agent deciding the stage (engine).

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "handlers/llm/cli_backend.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using testing::load_graph;
using testing::ScratchDir;

/// True while `pid` exists and is not a zombie waiting for a parent to reap it.
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::string stat;
  try {
    stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  } catch (const std::exception&) {
    return false;
  }
  auto paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

std::string path_with(const ScratchDir& bin) {
  const char* path = std::getenv("PATH");
  return bin.path() + ":" + (path ? path : "/usr/bin:/bin");
}

struct CliFixture {
  ScratchDir bin;
  ScratchDir stage;
  Graph graph;
  CliBackendSettings settings;

  explicit CliFixture(const std::string& dot) : graph(load_graph(dot)) { settings.env = {{"PATH", path_with(bin)}}; }
  CodergenRequest request(const std::string& node) {
    CodergenRequest r;
    r.graph = &graph;
    r.node = graph.node(node);
    r.prompt = "Fix the bug in parser.cc";
    r.stage_dir = stage.path();
    return r;
  }
};

const char* kOneNode = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
  code [llm_provider="cli", llm_model="claude-opus-4-6"]; plain [llm_provider="cli:echoer"];
  start -> code -> plain -> done })";

TEST(CliBackendTest, ClaudeJsonReplyWithModelFlagAndPromptOnStdin) {
  CliFixture f(kOneNode);
  f.bin.write_script("claude",
                     "printf '%s\\n' \"$*\" > \"$ATTRACTOR_STAGE_DIR/args.txt\"\n"
                     "cat > \"$ATTRACTOR_STAGE_DIR/stdin.txt\"\n"
                     "echo '{\"type\":\"result\",\"is_error\":false,\"result\":\"Fixed it.\",\"session_id\":\"s-1\","
                     "\"usage\":{\"input_tokens\":120,\"cache_read_input_tokens\":30,\"output_tokens\":45}}'\n");
  CliBackend backend("claude", f.settings);
  CodergenResult r = backend.run(f.request("code"));
  EXPECT_EQ(r.response, "Fixed it.");
  EXPECT_EQ(r.usage.input_tokens, 150);
  EXPECT_EQ(r.usage.output_tokens, 45);
  EXPECT_EQ(r.session_id, "s-1");
  EXPECT_EQ(r.model, "claude-opus-4-6");
  EXPECT_EQ(r.backend, "cli");
  EXPECT_EQ(read_text_file(f.stage.sub("args.txt")), "-p --output-format json --model claude-opus-4-6\n");
  EXPECT_EQ(read_text_file(f.stage.sub("stdin.txt")), "Fix the bug in parser.cc");
}

TEST(CliBackendTest, CustomTemplatePlainTextReplyAndPlaceholders) {
  CliFixture f(kOneNode);
  f.bin.write_script("echoer", "echo \"stage=$1 prompt=$(cat $2)\"\necho\n");
  f.settings.commands["echoer"] = "echoer {stage_dir} {prompt_file}";
  CliBackend backend("echoer", f.settings);
  CodergenResult r = backend.run(f.request("plain"));
  EXPECT_EQ(r.response, "stage=" + f.stage.path() + " prompt=Fix the bug in parser.cc");
  EXPECT_EQ(r.usage.input_tokens, 0);
  EXPECT_EQ(r.model, "echoer");
}

TEST(CliBackendTest, BuiltInTemplates) {
  CliBackendSettings none;
  EXPECT_EQ(cli_command_template("codex", "gpt-5.2", none), "codex exec --skip-git-repo-check --model {model} -");
  EXPECT_EQ(cli_command_template("gemini", "", none), "gemini");
  EXPECT_EQ(cli_command_template("aider", "", none), "");
  EXPECT_EQ(cli_command_variable("claude-code"), "ATTRACTOR_CLI_COMMAND_CLAUDE_CODE");
  EXPECT_EQ(command_executable("  codex exec -"), "codex");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

TEST(CliBackendTest, HistoryIsWrittenAsATranscript) {
  CodergenRequest r;
  r.prompt = "Now review.";
  r.history = {{"user", "Write it."}, {"assistant", "Done."}};
  EXPECT_EQ(
      cli_prompt_text(r),
      "## Conversation so far\n\n### user\n\nWrite it.\n\n### assistant\n\nDone.\n\n## Current request\n\nNow review.");
}

TEST(CliBackendTest, ExitCodesBecomeClassifiedErrors) {
  CliFixture f(kOneNode);
  f.bin.write_script("claude", "cat >/dev/null\necho 'rate limit reached' >&2\nexit 4\n");
  CliBackend backend("claude", f.settings);
  try {
    backend.run(f.request("code"));
    FAIL();
  } catch (const StageError& e) {
    EXPECT_EQ(std::string(e.what()), "cli agent claude exited with code 4: rate limit reached");
    EXPECT_EQ(e.category(), ErrorCategory::kRetryable);
  }
  f.settings.commands["claude"] = "no-such-agent-xyz";
  CliBackend missing("claude", f.settings);
  try {
    missing.run(f.request("code"));
    FAIL();
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    EXPECT_EQ(std::string(e.what()).rfind("cli agent claude exited with code 127", 0), 0u) << e.what();
  }
}

TEST(CliBackendTest, ClaudeErrorResultIsAFailure) {
  EXPECT_THROW(parse_cli_output(R"({"type":"result","is_error":true,"result":"Credit balance is too low"})"),
               StageError);
  EXPECT_EQ(parse_cli_output(R"({"response":"from gemini","stats":{}})").response, "from gemini");
  EXPECT_EQ(parse_cli_output("[1, 2]\n").response, "[1, 2]");
}

TEST(CliBackendTest, TimeoutKillsTheAgentsProcessGroup) {
  CliFixture f(kOneNode);
  f.bin.write_script("claude", "sleep 30 &\necho $! > \"$ATTRACTOR_STAGE_DIR/child.pid\"\nwait\n");
  CliBackend backend("claude", f.settings);
  CodergenRequest r = f.request("code");
  r.timeout_ms = 300;
  auto started = std::chrono::steady_clock::now();
  try {
    backend.run(r);
    FAIL();
  } catch (const StageError& e) {
    EXPECT_EQ(std::string(e.what()), "cli agent claude timed out after 1300ms");
    EXPECT_EQ(e.category(), ErrorCategory::kRetryable);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  pid_t child = std::stoi(read_text_file(f.stage.sub("child.pid")));
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = !alive(child);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "background child " << child << " survived";
}

TEST(CliBackendTest, StatusFileWrittenByTheAgentDecidesTheStage) {
  ScratchDir bin;
  bin.write_script(
      "reviewer",
      "cat >/dev/null\n"
      "echo '{\"outcome\": \"fail\", \"failure_reason\": \"tests still red\"}' > \"$ATTRACTOR_STATUS_FILE\"\n"
      "echo 'I could not fix it.'\n");
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    review [llm_provider="cli:reviewer", max_retries=0]; start -> review -> done })");
  BackendConfig config = testing::config_with_env({{"ATTRACTOR_CLI_COMMAND_REVIEWER", "reviewer"}});
  config.cli_env = {{"PATH", path_with(bin)}};
  testing::LlmRun run;
  RunResult result = run.run(g, std::make_shared<RoutingBackend>(config));
  EXPECT_EQ(result.outcome.status, StageStatus::kFail);
  EXPECT_EQ(run.status("review")["outcome"], "fail");
  EXPECT_EQ(run.status("review")["failure_reason"], "tests still red");
  EXPECT_EQ(read_text_file(run.run_dir() + "/review/response.md"), "I could not fix it.");
  EXPECT_EQ(read_text_file(run.run_dir() + "/review/attempt-1/agent_prompt.md"),
            read_text_file(run.run_dir() + "/review/prompt.md"));
}

}  // namespace
}  // namespace attractor
