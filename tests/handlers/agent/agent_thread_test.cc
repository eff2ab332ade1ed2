// Agent conversations stored as thread-session messages: the structured form survives the trip
// exactly, and the text form tells a backend without tools what happened.

#include "handlers/agent/agent_thread.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

using nlohmann::json;

std::vector<AgentMessage> conversation() {
  AgentMessage asked = AgentMessage::user("fix calc.sh");
  AgentMessage called;
  called.role = AgentMessage::Role::kAssistant;
  called.text = "Reading it first. [tool call lookalike]";
  called.tool_calls = {{"c1", "read_file", {{"file_path", "calc.sh"}}}, {"c2", "shell", {{"command", "sh t.sh"}}}};
  AgentMessage answer;
  answer.role = AgentMessage::Role::kAssistant;
  answer.text = "fixed";
  return {asked, called, AgentMessage::tool_result("c1", "echo 5", false),
          AgentMessage::tool_result("c2", "[exit code 1, 3 ms]", true), answer};
}

void expect_same(const AgentMessage& a, const AgentMessage& b) {
  EXPECT_EQ(a.role, b.role);
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.tool_call_id, b.tool_call_id);
  EXPECT_EQ(a.is_error, b.is_error);
  ASSERT_EQ(a.tool_calls.size(), b.tool_calls.size());
  for (std::size_t i = 0; i < a.tool_calls.size(); ++i) {
    EXPECT_EQ(a.tool_calls[i].id, b.tool_calls[i].id);
    EXPECT_EQ(a.tool_calls[i].name, b.tool_calls[i].name);
    EXPECT_EQ(a.tool_calls[i].arguments, b.tool_calls[i].arguments);
  }
}

TEST(AgentThreadTest, ToolCallsAndResultsSurviveTheThreadExactly) {
  const std::vector<AgentMessage> original = conversation();
  const std::vector<AgentMessage> back = from_thread_messages(to_thread_messages(original));
  ASSERT_EQ(back.size(), original.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(back[i], original[i]);
  }
}

TEST(AgentThreadTest, TheTextFormShowsCallsAndResultsToBackendsWithoutTools) {
  const std::vector<ChatMessage> thread = to_thread_messages(conversation());
  ASSERT_EQ(thread.size(), 5u);
  EXPECT_EQ(thread[0], (ChatMessage{"user", "fix calc.sh", nullptr}));
  EXPECT_EQ(thread[1].role, "assistant");
  EXPECT_EQ(thread[1].content,
            "Reading it first. [tool call lookalike]\n[tool call read_file {\"file_path\":\"calc.sh\"}]\n"
            "[tool call shell {\"command\":\"sh t.sh\"}]");
  EXPECT_EQ(thread[2].role, "user");
  EXPECT_EQ(thread[2].content, "[tool result]\necho 5");
  EXPECT_EQ(thread[3].content, "[tool result, error]\n[exit code 1, 3 ms]");
  EXPECT_TRUE(thread[4].agent.is_null()) << "a plain answer stays plain";
}

TEST(AgentThreadTest, PlainHistoryIsReadByRoleAndSystemMessagesAreLeftOut) {
  const std::vector<AgentMessage> back = from_thread_messages(
      {{"system", "be brief", nullptr}, {"user", "hello", nullptr}, {"assistant", "hi", nullptr}});
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].role, AgentMessage::Role::kUser);
  EXPECT_EQ(back[0].text, "hello");
  EXPECT_EQ(back[1].role, AgentMessage::Role::kAssistant);
  EXPECT_EQ(back[1].text, "hi");
  EXPECT_TRUE(back[1].tool_calls.empty());
}

}  // namespace
}  // namespace attractor
