// The coding agent's loop with a scripted model over a real working directory: a fix-the-test
// session end to end (files, transcript, events, hooks, usage), then each stop condition.

#include "handlers/agent/agent_session.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "handlers/agent/local_environment.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Answers with the scripted turns in order, then repeats the last one; records what it was sent.
class ScriptedModel : public AgentModel {
 public:
  explicit ScriptedModel(std::vector<ModelTurn> script) : script_(std::move(script)) {}
  ModelTurn complete(const std::string& system, const std::vector<AgentMessage>& messages,
                     const std::vector<AgentTool>& tools, const CancelToken&) override {
    sent.push_back(messages);
    systems.push_back(system);
    return script_[std::min(next_++, script_.size() - 1)];
  }
  std::vector<std::vector<AgentMessage>> sent;
  std::vector<std::string> systems;

 private:
  std::vector<ModelTurn> script_;
  std::size_t next_ = 0;
};

ModelTurn calls(std::vector<ModelToolCall> c, std::int64_t in = 100, std::int64_t out = 20) {
  ModelTurn t;
  t.tool_calls = std::move(c);
  t.input_tokens = in;
  t.output_tokens = out;
  t.model = "scripted";
  return t;
}

ModelTurn answer(std::string text) {
  ModelTurn t;
  t.text = std::move(text);
  t.input_tokens = 50;
  t.output_tokens = 5;
  t.model = "scripted";
  return t;
}

class AgentSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(dir_.path());
    std::ofstream(root_ / "calc.sh") << "echo $((2 + 3))\n";
    std::ofstream(root_ / "test.sh")
        << "test \"$(sh calc.sh)\" = 4 || { echo \"expected 4, got $(sh calc.sh)\"; exit 1; }\n"
           "echo ok\n";
    env_ = std::make_unique<LocalExecutionEnvironment>(root_.string());
  }
  std::string file(const std::string& name) {
    std::ifstream in(root_ / name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  testing::TempDir dir_;
  fs::path root_;
  std::unique_ptr<LocalExecutionEnvironment> env_;
};

std::string patch(const std::string& from, const std::string& to) {
  return "*** Begin Patch\n*** Update File: calc.sh\n@@\n-" + from + "\n+" + to + "\n*** End Patch\n";
}

TEST_F(AgentSessionTest, ReadsPatchesRunsTheTestsFixesAndAnswers) {
  ScriptedModel model({calls({{"c1", "read_file", {{"file_path", "calc.sh"}}}}),
                       calls({{"c2", "apply_patch", {{"patch", patch("echo $((2 + 3))", "echo $((2 * 3))")}}}}),
                       calls({{"c3", "shell", {{"command", "sh test.sh"}}}}),
                       calls({{"c4", "apply_patch", {{"patch", patch("echo $((2 * 3))", "echo $((2 + 2))")}}}}),
                       calls({{"c5", "shell", {{"command", "sh test.sh"}}}}),
                       answer("Fixed calc.sh; the test passes.")});
  AgentSession session(model, *env_, profile_tools("openai"));
  std::vector<std::pair<std::string, json>> events;
  session.set_events([&](const std::string& name, const json& fields) { events.emplace_back(name, fields); });
  std::vector<std::string> hook_log;
  session.set_hooks({[&](const ModelToolCall& c) -> std::optional<std::string> {
                       hook_log.push_back("pre " + c.name);
                       return std::nullopt;
                     },
                     [&](const ModelToolCall& c, const ToolResult& r) {
                       hook_log.push_back("post " + c.name + (r.is_error ? " error" : " ok"));
                     }});
  AgentRun run = session.run("SYSTEM", {}, "Make the test pass.", CancelToken());

  EXPECT_EQ(run.stop, AgentStop::kCompleted);
  EXPECT_EQ(run.final_text, "Fixed calc.sh; the test passes.");
  EXPECT_EQ(file("calc.sh"), "echo $((2 + 2))\n");
  EXPECT_EQ(run.turns, 6);
  EXPECT_EQ(run.tool_calls, 5);
  EXPECT_EQ(run.input_tokens, 550);
  EXPECT_EQ(run.output_tokens, 105);
  EXPECT_EQ(run.tools_used, (std::map<std::string, int>{{"apply_patch", 2}, {"read_file", 1}, {"shell", 2}}));
  EXPECT_EQ(hook_log, (std::vector<std::string>{
                          "pre read_file", "post read_file ok", "pre apply_patch", "post apply_patch ok", "pre shell",
                          "post shell error", "pre apply_patch", "post apply_patch ok", "pre shell", "post shell ok"}));
  ASSERT_EQ(run.transcript.size(), 12u) << run.transcript.dump(1);  // user, 6 assistant, 5 tool results
  EXPECT_EQ(run.transcript[6]["output"].get<std::string>().rfind("expected 4, got 6\n[exit code 1, ", 0), 0u);
  EXPECT_TRUE(run.transcript[6]["is_error"]);
  // The model saw the failing test's output and the read file with line numbers.
  const AgentMessage& read_back = model.sent[1].back();
  EXPECT_EQ(read_back.role, AgentMessage::Role::kToolResult);
  EXPECT_EQ(read_back.text, "   1 | echo $((2 + 3))\n");
  EXPECT_EQ(model.systems[0], "SYSTEM");
  std::vector<std::string> names;
  for (const auto& [name, fields] : events) names.push_back(name);
  EXPECT_EQ(std::count(names.begin(), names.end(), "AgentToolCallStarted"), 5);
  EXPECT_EQ(std::count(names.begin(), names.end(), "AgentToolCallCompleted"), 5);
  EXPECT_EQ(names.back(), "AgentSessionEnded");
  EXPECT_EQ(events.back().second["stop"], "completed");
}

TEST_F(AgentSessionTest, TheToolRoundLimitStopsAnEndlessSession) {
  ScriptedModel model({calls({{"c", "glob", {{"pattern", "*.sh"}}}})});
  AgentLimits limits;
  limits.max_tool_rounds = 3;
  limits.loop_window = 100;
  AgentSession session(model, *env_, profile_tools("anthropic"), limits);
  AgentRun run = session.run("", {}, "go", CancelToken());
  EXPECT_EQ(run.stop, AgentStop::kToolRoundLimit);
  EXPECT_EQ(run.stop_detail, "max_tool_rounds 3 reached");
  EXPECT_EQ(run.tool_calls, 3);
}

TEST_F(AgentSessionTest, TheTurnLimitStops) {
  ScriptedModel model({calls({{"c", "glob", {{"pattern", "*.sh"}}}})});
  AgentLimits limits;
  limits.max_turns = 2;
  limits.loop_window = 100;
  AgentSession session(model, *env_, profile_tools("anthropic"), limits);
  AgentRun run = session.run("", {}, "go", CancelToken());
  EXPECT_EQ(run.stop, AgentStop::kTurnLimit);
  EXPECT_EQ(run.turns, 2);
}

TEST_F(AgentSessionTest, ARepeatingLoopIsWarnedThenStopped) {
  ScriptedModel model({calls({{"c", "read_file", {{"file_path", "calc.sh"}}}})});
  AgentLimits limits;
  limits.loop_window = 3;
  AgentSession session(model, *env_, profile_tools("openai"), limits);
  std::vector<std::string> loop_events;
  session.set_events([&](const std::string& name, const json& fields) {
    if (name == "AgentLoopDetected") loop_events.push_back(fields["action"]);
  });
  AgentRun run = session.run("", {}, "go", CancelToken());
  EXPECT_EQ(run.stop, AgentStop::kLoop);
  EXPECT_EQ(loop_events, (std::vector<std::string>{"warn", "stop"}));
  EXPECT_EQ(run.tool_calls, 6);
  EXPECT_EQ(model.sent[3].back().text, LoopDetector::warning_text(3)) << "the warning reached the model";
}

TEST_F(AgentSessionTest, CancellationAndTheGateStopBeforeTheNextModelCall) {
  ScriptedModel model({calls({{"c", "glob", {{"pattern", "*"}}}})});
  CancelToken cancel;
  cancel.cancel();
  AgentSession cancelled(model, *env_, profile_tools("openai"));
  EXPECT_EQ(cancelled.run("", {}, "go", cancel).stop, AgentStop::kCancelled);
  EXPECT_TRUE(model.sent.empty());

  AgentSession gated(model, *env_, profile_tools("openai"));
  int calls_made = 0;
  std::vector<int> turns_seen;
  gated.set_gate([&](const AgentRun& so_far) {
    turns_seen.push_back(so_far.turns);
    return ++calls_made > 2 ? std::string("token budget reached: 250 of 200") : std::string();
  });
  AgentRun run = gated.run("", {}, "go", CancelToken());
  EXPECT_EQ(run.stop, AgentStop::kGate);
  EXPECT_EQ(run.stop_detail, "token budget reached: 250 of 200");
  EXPECT_EQ(run.turns, 2);
  EXPECT_EQ(turns_seen, (std::vector<int>{0, 1, 2})) << "the gate sees the session's progress";
}

TEST_F(AgentSessionTest, UnknownToolsAndRefusedCallsReachTheModelAsErrors) {
  ScriptedModel model(
      {calls({{"a", "rm_rf", json::object()}, {"b", "shell", {{"command", "touch made"}}}}), answer("ok")});
  AgentSession session(model, *env_, profile_tools("openai"));
  session.set_hooks({[](const ModelToolCall& c) -> std::optional<std::string> {
                       return c.name == "shell" ? std::optional<std::string>("no shell today") : std::nullopt;
                     },
                     nullptr});
  AgentRun run = session.run("", {}, "go", CancelToken());
  const auto& sent = model.sent[1];
  EXPECT_EQ(sent[sent.size() - 2].text, "unknown tool 'rm_rf'");
  EXPECT_EQ(sent.back().text, "refused by tool_hooks.pre: no shell today");
  EXPECT_TRUE(sent.back().is_error);
  EXPECT_FALSE(fs::exists(root_ / "made"));
  EXPECT_EQ(run.stop, AgentStop::kCompleted);
}

TEST_F(AgentSessionTest, LongToolOutputIsTruncatedForTheModelButNotInTheTranscript) {
  ScriptedModel model({calls({{"c", "shell", {{"command", "seq 1 5000"}}}}), answer("done")});
  AgentSession session(model, *env_, profile_tools("openai"));
  AgentRun run = session.run("", {}, "go", CancelToken());
  const std::string full = run.transcript[2]["output"];
  EXPECT_NE(full.find("\n2500\n"), std::string::npos);
  const std::string seen = model.sent[1].back().text;
  EXPECT_EQ(seen.find("\n2500\n"), std::string::npos);
  EXPECT_NE(seen.find("lines omitted"), std::string::npos);
}

}  // namespace
}  // namespace attractor
