// The tool-calling wire formats against an in-process fake provider of each protocol: the same
// scripted session (read a file, edit it, answer) runs over OpenAI Chat Completions and Anthropic
// Messages, and each request is checked in the provider's own shape (the parity of spec §9.12
// as far as these tools go).

#include "handlers/agent/agent_protocol.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "handlers/agent/agent_session.h"
#include "handlers/agent/local_environment.h"
#include "support/fake_llm_server.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::FakeLlmServer;
using testing::ScriptedReply;

std::string openai_reply(json message, int in, int out) {
  return json{{"id", "chatcmpl-1"},
              {"model", "gpt-test"},
              {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}}}}
      .dump();
}

std::string openai_call(const std::string& id, const std::string& name, const json& args) {
  return openai_reply(
      {{"role", "assistant"},
       {"content", nullptr},
       {"tool_calls",
        {{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args.dump()}}}}}}},
      30, 10);
}

std::string anthropic_reply(json content, int in, int out) {
  return json{{"id", "msg_1"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-test"},
              {"content", content},
              {"stop_reason", "end_turn"},
              {"usage", {{"input_tokens", in}, {"output_tokens", out}}}}
      .dump();
}

std::string anthropic_call(const std::string& id, const std::string& name, const json& args) {
  return anthropic_reply({{{"type", "text"}, {"text", "Let me look."}},
                          {{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", args}}},
                         30, 10);
}

class AgentProtocolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(dir_.path());
    std::ofstream(root_ / "greet.txt") << "hello wrld\n";
    env_ = std::make_unique<LocalExecutionEnvironment>(root_.string());
  }

  AgentRun run(const std::string& provider, FakeLlmServer& server) {
    ProviderSettings settings;
    settings.base_url = server.url();
    settings.api_key = "test-key";
    settings.retry.max_retries = 0;
    HttpAgentModel model(provider, provider == "openai" ? "gpt-test" : "claude-test", settings);
    AgentSession session(model, *env_, profile_tools(provider));
    return session.run("You are a careful coder.", {}, "Fix the typo in greet.txt.", CancelToken());
  }
  std::string file(const std::string& name) {
    std::ifstream in(root_ / name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  testing::TempDir dir_;
  fs::path root_;
  std::unique_ptr<LocalExecutionEnvironment> env_;
};

TEST_F(AgentProtocolTest, OpenAiToolCallsRoundTrip) {
  FakeLlmServer server;
  ScriptedReply r1, r2, r3;
  r1.body = openai_call("call_1", "read_file", {{"file_path", "greet.txt"}});
  r2.body = openai_call("call_2", "apply_patch",
                        {{"patch",
                          "*** Begin Patch\n*** Update File: greet.txt\n@@\n-hello wrld\n+hello world\n"
                          "*** End Patch\n"}});
  r3.body = openai_reply({{"role", "assistant"}, {"content", "Fixed."}}, 40, 3);
  for (auto& r : {r1, r2, r3}) server.push(r);
  AgentRun result = run("openai", server);
  EXPECT_EQ(result.stop, AgentStop::kCompleted);
  EXPECT_EQ(result.final_text, "Fixed.");
  EXPECT_EQ(file("greet.txt"), "hello world\n");
  EXPECT_EQ(result.input_tokens, 100);
  EXPECT_EQ(result.output_tokens, 23);

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer test-key");
  const json& first = requests[0].body;
  EXPECT_EQ(first["messages"][0], json({{"role", "system"}, {"content", "You are a careful coder."}}));
  EXPECT_EQ(first["messages"][1], json({{"role", "user"}, {"content", "Fix the typo in greet.txt."}}));
  std::vector<std::string> tools;
  for (const json& t : first["tools"]) tools.push_back(t["function"]["name"]);
  EXPECT_EQ(tools, (std::vector<std::string>{"read_file", "apply_patch", "write_file", "shell", "grep", "glob"}));
  EXPECT_EQ(first["tools"][0]["type"], "function");
  const json& second = requests[1].body["messages"];
  EXPECT_EQ(second[2]["role"], "assistant");
  EXPECT_EQ(second[2]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(json::parse(second[2]["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            json({{"file_path", "greet.txt"}}));
  EXPECT_EQ(second[3], json({{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "   1 | hello wrld\n"}}));
}

TEST_F(AgentProtocolTest, AnthropicToolUseRoundTrip) {
  FakeLlmServer server;
  ScriptedReply r1, r2, r3;
  r1.body = anthropic_call("toolu_1", "read_file", {{"file_path", "greet.txt"}});
  r2.body = anthropic_call("toolu_2", "edit_file",
                           {{"file_path", "greet.txt"}, {"old_string", "wrld"}, {"new_string", "world"}});
  r3.body = anthropic_reply({{{"type", "text"}, {"text", "Fixed."}}}, 40, 3);
  for (auto& r : {r1, r2, r3}) server.push(r);
  AgentRun result = run("anthropic", server);
  EXPECT_EQ(result.stop, AgentStop::kCompleted);
  EXPECT_EQ(result.final_text, "Fixed.");
  EXPECT_EQ(file("greet.txt"), "hello world\n");
  EXPECT_EQ(result.input_tokens, 100);
  EXPECT_EQ(result.output_tokens, 23);

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].headers["x-api-key"], "test-key");
  EXPECT_EQ(requests[0].headers["anthropic-version"], "2023-06-01");
  const json& first = requests[0].body;
  EXPECT_EQ(first["system"], "You are a careful coder.");
  EXPECT_EQ(first["messages"][0]["content"][0], json({{"type", "text"}, {"text", "Fix the typo in greet.txt."}}));
  EXPECT_EQ(first["tools"][2]["name"], "edit_file");
  EXPECT_TRUE(first["tools"][2].contains("input_schema"));
  const json& second = requests[1].body["messages"];
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[1]["role"], "assistant");
  EXPECT_EQ(
      second[1]["content"][1],
      json({{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "read_file"}, {"input", {{"file_path", "greet.txt"}}}}));
  EXPECT_EQ(second[2], json({{"role", "user"},
                             {"content",
                              {{{"type", "tool_result"},
                                {"tool_use_id", "toolu_1"},
                                {"content", "   1 | hello wrld\n"},
                                {"is_error", false}}}}}));
}

TEST(AgentProtocolParseTest, MalformedArgumentsAndBodiesAreReported) {
  json call = {{"id", "c"}, {"type", "function"}, {"function", {{"name", "shell"}, {"arguments", "{oops"}}}};
  json message = {{"role", "assistant"}, {"tool_calls", json::array({call})}};
  ModelTurn t = parse_openai_tools_response(openai_reply(message, 1, 1));
  ASSERT_EQ(t.tool_calls.size(), 1u);
  EXPECT_EQ(t.tool_calls[0].arguments, json({{"_raw", "{oops"}}));
  EXPECT_THROW(parse_openai_tools_response("{\"nope\": 1}"), StageError);
  EXPECT_THROW(parse_anthropic_tools_response("not json"), StageError);
}

TEST(AgentProtocolBodyTest, ConsecutiveAnthropicToolResultsShareOneUserMessage) {
  AgentMessage assistant;
  assistant.role = AgentMessage::Role::kAssistant;
  assistant.tool_calls = {{"a", "glob", {{"pattern", "*"}}}, {"b", "glob", {{"pattern", "*.h"}}}};
  std::vector<AgentMessage> messages = {AgentMessage::user("go"), assistant, AgentMessage::tool_result("a", "x", false),
                                        AgentMessage::tool_result("b", "y", true)};
  json body = anthropic_tools_body("m", 100, "", messages, {});
  ASSERT_EQ(body["messages"].size(), 3u);
  EXPECT_EQ(body["messages"][2]["content"].size(), 2u);
  EXPECT_EQ(body["messages"][2]["content"][1]["is_error"], true);
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_FALSE(body.contains("system"));
}

}  // namespace
}  // namespace attractor
