// `llm_provider=agent` through the real binary against an in-process fake provider of each
// protocol: the agent reads the project, edits it with the provider's edit tool, runs the test,
// and routes the stage by the outcome its last line states; hooks, events, transcript and usage
// are checked on disk (the parity of spec §9.12 for these tools).

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "handlers/agent/agent_backend.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::BinaryRun;
using testing::FakeLlmServer;
using testing::run_binary;
using testing::ScriptedReply;

std::string openai_turn(json message) {
  return json{{"id", "c"},
              {"model", "gpt-test"},
              {"choices", {{{"index", 0}, {"message", message}}}},
              {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 10}}}}
      .dump();
}

std::string openai_call(const std::string& id, const std::string& name, const json& args) {
  json call = {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args.dump()}}}};
  return openai_turn({{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}});
}

std::string anthropic_turn(const json& content) { return testing::anthropic_message(content, 100, 10); }

std::string anthropic_call(const std::string& id, const std::string& name, const json& args) {
  return anthropic_turn(json::array({{{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", args}}}));
}

const char* kAnswer =
    "calc.sh adds correctly now and test.sh passes.\n{\"outcome\": \"success\", \"preferred_label\": \"Done\"}";

std::string graph(const std::string& provider_model, const std::string& workdir, const std::string& hooks_log) {
  return "digraph Fix {\n"
         "  start [shape=Mdiamond]\n  exit [shape=Msquare]\n"
         "  fix [shape=box, llm_provider=agent, llm_model=\"" +
         provider_model + "\", workdir=\"" + workdir +
         "\", prompt=\"Make test.sh pass.\", tool_hooks.pre=\"echo pre $TOOL_NAME >> " + hooks_log +
         "\", tool_hooks.post=\"echo post $TOOL_NAME $EXIT_CODE >> " + hooks_log +
         "\"]\n"
         "  again [shape=box, llm_provider=simulate, prompt=\"never\"]\n"
         "  start -> fix\n  fix -> exit [label=\"Done\"]\n  fix -> again [label=\"Again\"]\n  again -> exit\n}\n";
}

class AgentBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.sub("proj"));
    std::ofstream(dir_.sub("proj/calc.sh")) << "echo $((2 * 2 + 1))\n";
    std::ofstream(dir_.sub("proj/test.sh")) << "test \"$(sh calc.sh)\" = 4 && echo ok\n";
  }
  BinaryRun run(const std::string& model, std::vector<std::pair<std::string, std::string>> env) {
    write_text_file(dir_.sub("g.dot"), graph(model, dir_.sub("proj"), dir_.sub("hooks.log")));
    env.emplace_back("ATTRACTOR_LLM_MAX_RETRIES", "0");
    return run_binary({"run", dir_.sub("g.dot"), "--logs-root", dir_.sub("run"), "-q"}, env, dir_);
  }
  void expect_the_fix_landed(int calls) {
    EXPECT_EQ(read_text_file(dir_.sub("proj/calc.sh")), "echo $((2 * 2))\n");
    EXPECT_FALSE(fs::exists(dir_.sub("run/again"))) << "routed by the stated preferred_label";
    json status = json::parse(read_text_file(dir_.sub("run/fix/status.json")));
    EXPECT_EQ(status["backend"], "agent");
    EXPECT_EQ(status["usage"]["input_tokens"], 100 * (calls + 1));
    EXPECT_EQ(status["usage"]["output_tokens"], 10 * (calls + 1));
    EXPECT_EQ(read_text_file(dir_.sub("run/fix/response.md")), kAnswer);
    json summary = json::parse(read_text_file(dir_.sub("run/fix/agent.json")));
    EXPECT_EQ(summary["stop"], "completed");
    EXPECT_EQ(summary["tool_calls"], calls);
    std::ifstream transcript(dir_.sub("run/fix/transcript.jsonl"));
    int lines = 0;
    for (std::string line; std::getline(transcript, line);) ++lines;
    EXPECT_EQ(lines, 1 + (calls + 1) + calls);
    const std::string events = read_text_file(dir_.sub("run/events.jsonl"));
    int started = 0;
    for (std::size_t at = events.find("AgentToolCallStarted"); at != std::string::npos;
         at = events.find("AgentToolCallStarted", at + 1)) {
      ++started;
    }
    EXPECT_EQ(started, calls);
    EXPECT_NE(events.find("\"event\":\"AgentSessionEnded\""), std::string::npos);
    int records = 0;  // the two `sh test.sh` commands, and any hooks
    for (const auto& attempt : fs::directory_iterator(dir_.sub("run/fix"))) {
      if (!attempt.is_directory() || !attempt.path().filename().string().starts_with("attempt-")) continue;
      for (const auto& file : fs::directory_iterator(attempt.path())) {
        if (file.path().filename().string().starts_with("process-")) ++records;
      }
    }
    EXPECT_GE(records, 2) << "each shell command's process group is recorded for the resume check";
  }

  testing::ScratchDir dir_;
};

TEST_F(AgentBackendTest, AnthropicEditsWithEditFileRunsTheTestAndRoutesByItsOutcome) {
  FakeLlmServer anthropic;
  for (const std::string& body :
       {anthropic_call("t1", "read_file", {{"file_path", "calc.sh"}}),
        anthropic_call("t2", "shell", {{"command", "sh test.sh"}}),
        anthropic_call("t3", "edit_file", {{"file_path", "calc.sh"}, {"old_string", " + 1"}, {"new_string", ""}}),
        anthropic_call("t4", "shell", {{"command", "sh test.sh"}}),
        anthropic_turn(json::array({{{"type", "text"}, {"text", kAnswer}}}))}) {
    ScriptedReply r;
    r.body = body;
    anthropic.push(r);
  }
  BinaryRun r = run("claude-test", {{"ANTHROPIC_BASE_URL", anthropic.url()}});
  ASSERT_EQ(r.code, 0) << r.err;
  expect_the_fix_landed(4);
  EXPECT_EQ(read_text_file(dir_.sub("hooks.log")),
            "pre read_file\npost read_file 0\npre shell\npost shell 1\npre edit_file\npost edit_file 0\n"
            "pre shell\npost shell 0\n");
  auto requests = anthropic.requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_NE(requests[0].body["system"].get<std::string>().find("<environment>\nWorking directory: " +
                                                               fs::canonical(dir_.sub("proj")).string()),
            std::string::npos);
  const std::string prompt = requests[0].body["messages"][0]["content"][0]["text"];
  EXPECT_EQ(prompt.rfind("## Pipeline State\n", 0), 0u) << "the stage prompt comes with its fidelity preamble";
  EXPECT_EQ(prompt.substr(prompt.size() - 20), "\n\nMake test.sh pass.");
  const json failed = requests[2].body["messages"][4]["content"][0];
  EXPECT_EQ(failed["content"].get<std::string>().rfind("[exit code 1", 0), 0u) << failed.dump();
  EXPECT_EQ(failed["is_error"], true) << "the failing test reaches the model as an error";
  EXPECT_EQ(requests[4].body["messages"][8]["content"][0]["content"].get<std::string>().rfind("ok\n[exit code 0", 0),
            0u);
}

TEST_F(AgentBackendTest, OpenAiPatchesWithApplyPatchToTheSameResult) {
  FakeLlmServer openai;
  const std::string patch =
      "*** Begin Patch\n*** Update File: calc.sh\n@@\n-echo $((2 * 2 + 1))\n+echo $((2 * 2))\n"
      "*** End Patch\n";
  for (const std::string& body :
       {openai_call("c1", "read_file", {{"file_path", "calc.sh"}}),
        openai_call("c2", "shell", {{"command", "sh test.sh"}}), openai_call("c3", "apply_patch", {{"patch", patch}}),
        openai_call("c4", "shell", {{"command", "sh test.sh"}}),
        openai_turn({{"role", "assistant"}, {"content", kAnswer}})}) {
    ScriptedReply r;
    r.body = body;
    openai.push(r);
  }
  BinaryRun r = run("gpt-test", {{"OPENAI_BASE_URL", openai.url() + "/v1"}});
  ASSERT_EQ(r.code, 0) << r.err;
  expect_the_fix_landed(4);
  EXPECT_EQ(read_text_file(dir_.sub("hooks.log")),
            "pre read_file\npost read_file 0\npre shell\npost shell 1\npre apply_patch\npost apply_patch 0\n"
            "pre shell\npost shell 0\n");
  auto requests = openai.requests();
  ASSERT_EQ(requests.size(), 5u);
  json failed;
  for (const json& m : requests[2].body["messages"]) {
    if (m.value("tool_call_id", "") == "c2") failed = m;
  }
  EXPECT_EQ(failed["role"], "tool");
  EXPECT_NE(failed["content"].get<std::string>().find("[exit code 1"), std::string::npos) << failed.dump();
  std::vector<std::string> tools;
  for (const json& t : requests[0].body["tools"]) tools.push_back(t["function"]["name"]);
  EXPECT_EQ(tools[1], "apply_patch");
}

TEST_F(AgentBackendTest, ARefusingPreHookBlocksTheCallAndTheModelIsTold) {
  FakeLlmServer anthropic;
  for (const std::string& body : {anthropic_call("t1", "shell", {{"command", "touch made"}}),
                                  anthropic_turn(json::array({{{"type", "text"}, {"text", "gave up"}}}))}) {
    ScriptedReply r;
    r.body = body;
    anthropic.push(r);
  }
  write_text_file(dir_.sub("g.dot"),
                  "digraph H { start [shape=Mdiamond] exit [shape=Msquare]\n"
                  "  fix [llm_provider=agent, llm_model=\"claude-test\", workdir=\"" +
                      dir_.sub("proj") +
                      "\", prompt=\"go\", tool_hooks.pre=\"echo no shell here >&2; exit 1\"]\n"
                      "  start -> fix -> exit }\n");
  BinaryRun r = run_binary({"run", dir_.sub("g.dot"), "--logs-root", dir_.sub("run"), "-q"},
                           {{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}}, dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_.sub("proj/made")));
  json result = anthropic.requests()[1].body["messages"][2]["content"][0];
  EXPECT_EQ(result["content"], "refused by tool_hooks.pre: no shell here");
  EXPECT_EQ(result["is_error"], true);
}

TEST(AgentOutcomeTest, TheLastLineMayStateTheOutcome) {
  auto o = outcome_from_answer("All done.\n{\"outcome\": \"fail\", \"failure_reason\": \"tests still red\"}\n");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->status, StageStatus::kFail);
  EXPECT_FALSE(outcome_from_answer("All done."));
  EXPECT_FALSE(outcome_from_answer("{\"note\": 1}"));
}

void push_bodies(FakeLlmServer& server, const std::vector<std::string>& bodies) {
  for (const std::string& body : bodies) {
    ScriptedReply r;
    r.body = body;
    server.push(r);
  }
}

std::string one_stage_graph(const std::string& attributes, const std::string& workdir) {
  return "digraph G { " + attributes +
         "\n start [shape=Mdiamond] exit [shape=Msquare]\n"
         "  fix [llm_provider=agent, llm_model=\"claude-test\", workdir=\"" +
         workdir +
         "\", prompt=\"go\"]\n"
         "  start -> fix -> exit }\n";
}

TEST_F(AgentBackendTest, TheNodeTimeoutStopsAnAgentWaitingOnAHangingProvider) {
  FakeLlmServer anthropic;
  push_bodies(anthropic, {anthropic_call("t1", "read_file", {{"file_path", "calc.sh"}})});
  anthropic.push_hang();
  std::string g = one_stage_graph("", dir_.sub("proj"));
  g.replace(g.find("prompt=\"go\""), 11, "prompt=\"go\", timeout=\"1s\", max_retries=0");
  write_text_file(dir_.sub("g.dot"), g);
  const auto started = std::chrono::steady_clock::now();
  BinaryRun r = run_binary({"run", dir_.sub("g.dot"), "--logs-root", dir_.sub("run"), "-q"},
                           {{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}}, dir_);
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_LT(seconds, 20.0) << "the hanging request was abandoned at the timeout";
  json status = json::parse(read_text_file(dir_.sub("run/fix/status.json")));
  EXPECT_EQ(status["outcome"], "fail");
  EXPECT_NE(status["failure_reason"].get<std::string>().find("timed out after 1000ms"), std::string::npos)
      << status.dump();
  EXPECT_EQ(anthropic.requests().size(), 2u);
}

TEST_F(AgentBackendTest, TheRunBudgetStopsTheAgentBetweenTurnsAndResumeContinuesTheStage) {
  FakeLlmServer anthropic;
  push_bodies(anthropic, {anthropic_call("t1", "glob", {{"pattern", "*.sh"}}),
                          anthropic_call("t2", "read_file", {{"file_path", "calc.sh"}}),
                          anthropic_call("t3", "read_file", {{"file_path", "test.sh"}}),
                          anthropic_turn(json::array({{{"type", "text"}, {"text", "done"}}}))});
  write_text_file(dir_.sub("g.dot"), one_stage_graph("max_total_tokens=250", dir_.sub("proj")));
  const std::vector<std::pair<std::string, std::string>> env = {{"ANTHROPIC_BASE_URL", anthropic.url()},
                                                                {"ATTRACTOR_LLM_MAX_RETRIES", "0"}};
  BinaryRun r = run_binary({"run", dir_.sub("g.dot"), "--logs-root", dir_.sub("run"), "-q"}, env, dir_);
  ASSERT_EQ(r.code, 4) << r.err;
  EXPECT_EQ(anthropic.requests().size(), 3u) << "110 tokens per turn: the fourth call would start at 330 of 250";
  EXPECT_EQ(json::parse(read_text_file(dir_.sub("run/fix/agent.json")))["stop"], "budget");
  json checkpoint = json::parse(read_text_file(dir_.sub("run/checkpoint.json")));
  EXPECT_EQ(checkpoint["next_node"], "fix") << "the unfinished stage runs again on resume";
  const std::string events = read_text_file(dir_.sub("run/events.jsonl"));
  EXPECT_NE(events.find("token budget reached: 330 of max_total_tokens=250 used during stage `fix`"),
            std::string::npos);

  r = run_binary({"resume", dir_.sub("run"), "--max-total-tokens", "1000", "-q"}, env, dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(anthropic.requests().size(), 4u);
  EXPECT_EQ(read_text_file(dir_.sub("run/fix/response.md")), "done");
}

TEST_F(AgentBackendTest, FullFidelityThreadsCarryTheToolConversationAndPreamblesNameTheTools) {
  FakeLlmServer anthropic;
  push_bodies(anthropic, {anthropic_call("t1", "read_file", {{"file_path", "calc.sh"}}),
                          anthropic_turn(json::array({{{"type", "text"}, {"text", "read it"}}})),
                          anthropic_turn(json::array({{{"type", "text"}, {"text", "still know it"}}})),
                          anthropic_turn(json::array({{{"type", "text"}, {"text", "summary seen"}}}))});
  const std::string agent = "llm_provider=agent, llm_model=\"claude-test\", workdir=\"" + dir_.sub("proj") + "\"";
  write_text_file(dir_.sub("g.dot"),
                  "digraph T { start [shape=Mdiamond] exit [shape=Msquare]\n"
                  "  first [" +
                      agent +
                      ", prompt=\"read calc.sh\", fidelity=full, thread_id=work]\n"
                      "  second [" +
                      agent +
                      ", prompt=\"what did it say?\", fidelity=full, thread_id=work]\n"
                      "  third [" +
                      agent +
                      ", prompt=\"report\", fidelity=\"summary:high\"]\n"
                      "  start -> first -> second -> third -> exit }\n");
  BinaryRun r = run_binary({"run", dir_.sub("g.dot"), "--logs-root", dir_.sub("run"), "-q"},
                           {{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}}, dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  auto requests = anthropic.requests();
  ASSERT_EQ(requests.size(), 4u);
  const json& thread = requests[2].body["messages"];
  ASSERT_EQ(thread.size(), 5u) << thread.dump(1);
  const std::string first = thread[0]["content"][0]["text"];
  EXPECT_EQ(first.substr(first.size() - 13), "\nread calc.sh") << "a new thread starts with a preamble";
  EXPECT_EQ(thread[1]["content"][0]["type"], "tool_use");
  EXPECT_EQ(thread[1]["content"][0]["id"], "t1");
  EXPECT_EQ(thread[2]["content"][0]["type"], "tool_result");
  EXPECT_EQ(thread[2]["content"][0]["tool_use_id"], "t1");
  EXPECT_NE(thread[2]["content"][0]["content"].get<std::string>().find("echo $((2 * 2 + 1))"), std::string::npos);
  EXPECT_EQ(thread[3]["content"][0]["text"], "read it");
  EXPECT_EQ(thread[4]["content"][0]["text"], "what did it say?");
  const std::string third = requests[3].body["messages"][0]["content"][0]["text"];
  EXPECT_NE(third.find("Tools used: read_file x1"), std::string::npos) << third;
}
}  // namespace
}  // namespace attractor
