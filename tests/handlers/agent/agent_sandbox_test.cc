// The coding agent's `shell` runs at sandbox `workspace` by default: through the real binary and
// the real agent loop against a fake Anthropic server, a command the model chose cannot read the
// home directory or write the system, the model is told what failed, and status.json says how the
// commands were confined.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
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

std::string turn(const json& content) { return testing::anthropic_message(content, 10, 5); }

std::string shell_call(const std::string& id, const std::string& command) {
  return turn(json::array({{{"type", "tool_use"}, {"id", id}, {"name", "shell"}, {"input", {{"command", command}}}}}));
}

class AgentSandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.sub("proj"));
    fs::create_directories(dir_.sub("home/.aws"));
    std::ofstream(dir_.sub("home/.aws/credentials")) << "aws_secret_access_key=HUNTER2\n";
  }
  /// Runs `fix` with the two shell commands, then a final answer; the requests the model got.
  std::vector<json> run(const std::string& first, const std::string& second, const std::string& sandbox_attr,
                        BinaryRun& result) {
    FakeLlmServer anthropic;
    for (const std::string& body : {shell_call("t1", first), shell_call("t2", second),
                                    turn(json::array({{{"type", "text"}, {"text", "done"}}}))}) {
      ScriptedReply r;
      r.body = body;
      anthropic.push(r);
    }
    write_text_file(dir_.sub("g.dot"),
                    "digraph S { start [shape=Mdiamond] exit [shape=Msquare]\n"
                    "  fix [llm_provider=agent, llm_model=\"claude-test\", workdir=\"" +
                        dir_.sub("proj") + "\", prompt=\"go\"" + sandbox_attr + "]\n  start -> fix -> exit }\n");
    result = run_binary(
        {"run", dir_.sub("g.dot"), "--logs-root", dir_.sub("run"), "-q"},
        {{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}, {"HOME", dir_.sub("home")}},
        dir_);
    std::vector<json> bodies;
    for (const auto& request : anthropic.requests()) bodies.push_back(request.body);
    return bodies;
  }
  /// The text of the tool result the model got in request `index`.
  static std::string tool_result(const std::vector<json>& bodies, std::size_t index) {
    const json& messages = bodies.at(index)["messages"];
    return messages.back()["content"][0]["content"].get<std::string>();
  }

  testing::ScratchDir dir_;
};

TEST_F(AgentSandboxTest, TheShellCannotReadTheHomeDirectoryOrWriteTheSystemByDefault) {
  BinaryRun r;
  std::vector<json> bodies = run("cat ~/.aws/credentials", "echo ok > made.txt && touch /usr/attractor-agent-probe", "",
                                 r);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_EQ(tool_result(bodies, 1).find("HUNTER2"), std::string::npos);
  EXPECT_NE(tool_result(bodies, 1).find("No such file or directory"), std::string::npos) << tool_result(bodies, 1);
  EXPECT_NE(tool_result(bodies, 2).find("Read-only file system"), std::string::npos) << tool_result(bodies, 2);
  EXPECT_EQ(read_text_file(dir_.sub("proj/made.txt")), "ok\n");
  EXPECT_FALSE(fs::exists("/usr/attractor-agent-probe"));
  json status = json::parse(read_text_file(dir_.sub("run/fix/status.json")));
  EXPECT_EQ(status["sandbox"]["level"], "workspace");
  EXPECT_EQ(status["sandbox"]["network"], "all");
  EXPECT_EQ(status["sandbox"]["denied"],
            json::array({"touch: cannot touch '/usr/attractor-agent-probe': Read-only file system"}));
}

TEST_F(AgentSandboxTest, ANodeThatChoosesNoneGetsTheUsersView) {
  BinaryRun r;
  std::vector<json> bodies = run("cat ~/.aws/credentials", "true", ", sandbox=none", r);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(tool_result(bodies, 1).find("HUNTER2"), std::string::npos);
  json status = json::parse(read_text_file(dir_.sub("run/fix/status.json")));
  EXPECT_EQ(status["sandbox"]["level"], "none");
}

}  // namespace
}  // namespace attractor
