// The coding agent's tools against a real working directory: profiles, line-numbered reads,
// exact-string edits, shell results, search, and errors that reach the model as results.

#include "handlers/agent/agent_tools.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "handlers/agent/local_environment.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class AgentToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(dir_.path());
    std::ofstream(root_ / "app.py") << "def main():\n    print(\"hi\")\n    return 0\n";
    env_ = std::make_unique<LocalExecutionEnvironment>(root_.string());
  }

  ToolResult call(const std::string& name, const json& args) { return run_tool(*core_tool(name), args, *env_); }
  std::string file(const std::string& name) {
    std::ifstream in(root_ / name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  testing::TempDir dir_;
  fs::path root_;
  std::unique_ptr<LocalExecutionEnvironment> env_;
};

std::vector<std::string> names(const std::vector<AgentTool>& tools) {
  std::vector<std::string> out;
  for (const AgentTool& t : tools) out.push_back(t.name);
  return out;
}

TEST(AgentToolProfilesTest, EachProviderGetsItsNativeEditTool) {
  EXPECT_EQ(names(profile_tools("openai")),
            (std::vector<std::string>{"read_file", "apply_patch", "write_file", "shell", "grep", "glob"}));
  EXPECT_EQ(names(profile_tools("anthropic")),
            (std::vector<std::string>{"read_file", "write_file", "edit_file", "shell", "grep", "glob"}));
  EXPECT_THROW(profile_tools("gemini"), std::invalid_argument);
  for (const AgentTool& t : profile_tools("openai")) {
    EXPECT_EQ(t.parameters["type"], "object") << t.name;
    EXPECT_FALSE(t.description.empty()) << t.name;
  }
}

TEST_F(AgentToolsTest, ReadFileNumbersLines) {
  EXPECT_EQ(call("read_file", {{"file_path", "app.py"}}).output,
            "   1 | def main():\n   2 |     print(\"hi\")\n   3 |     return 0\n");
  EXPECT_EQ(call("read_file", {{"file_path", "app.py"}, {"offset", 2}, {"limit", 1}}).output,
            "   2 |     print(\"hi\")\n");
  ToolResult missing = call("read_file", {{"file_path", "nope.py"}});
  EXPECT_TRUE(missing.is_error);
  EXPECT_EQ(missing.output, "file not found: nope.py");
  ToolResult escape = call("read_file", {{"file_path", "../../etc/passwd"}});
  EXPECT_TRUE(escape.is_error);
  EXPECT_NE(escape.output.find("is outside the working directory"), std::string::npos);
}

TEST_F(AgentToolsTest, EditFileReplacesExactlyOneOccurrenceUnlessToldOtherwise) {
  ToolResult ok = call("edit_file", {{"file_path", "app.py"}, {"old_string", "return 0"}, {"new_string", "return 1"}});
  EXPECT_FALSE(ok.is_error) << ok.output;
  EXPECT_EQ(ok.output, "replaced 1 occurrence in app.py");
  EXPECT_EQ(file("app.py"), "def main():\n    print(\"hi\")\n    return 1\n");
  ToolResult absent = call("edit_file", {{"file_path", "app.py"}, {"old_string", "return 7"}, {"new_string", "x"}});
  EXPECT_TRUE(absent.is_error);
  EXPECT_EQ(absent.output, "old_string not found in app.py; read the file and copy the text exactly");
  ToolResult twice = call("edit_file", {{"file_path", "app.py"}, {"old_string", "    "}, {"new_string", "\t"}});
  EXPECT_TRUE(twice.is_error);
  EXPECT_EQ(twice.output,
            "old_string occurs 2 times in app.py; add surrounding lines to make it unique or set replace_all");
  ToolResult all = call("edit_file",
                        {{"file_path", "app.py"}, {"old_string", "    "}, {"new_string", "\t"}, {"replace_all", true}});
  EXPECT_EQ(all.output, "replaced 2 occurrences in app.py");
  EXPECT_EQ(file("app.py"), "def main():\n\tprint(\"hi\")\n\treturn 1\n");
}

TEST_F(AgentToolsTest, ApplyPatchAndWriteFileChangeTheTree) {
  ToolResult patched = call("apply_patch", {{"patch",
                                             "*** Begin Patch\n*** Update File: app.py\n@@ def main():\n"
                                             "     print(\"hi\")\n-    return 0\n+    return 2\n"
                                             "*** Add File: notes.txt\n+hello\n*** End Patch\n"}});
  EXPECT_FALSE(patched.is_error) << patched.output;
  EXPECT_EQ(file("app.py"), "def main():\n    print(\"hi\")\n    return 2\n");
  EXPECT_EQ(file("notes.txt"), "hello\n");
  ToolResult written = call("write_file", {{"file_path", "dir/new.txt"}, {"content", "abc"}});
  EXPECT_EQ(written.output, "wrote 3 bytes to dir/new.txt");
  EXPECT_EQ(file("dir/new.txt"), "abc");
}

TEST_F(AgentToolsTest, ShellReportsOutputExitCodeAndTimeouts) {
  ToolResult ok = call("shell", {{"command", "echo out; echo err >&2"}});
  EXPECT_FALSE(ok.is_error);
  EXPECT_EQ(ok.output.substr(0, ok.output.find("[exit")), "out\nerr\n");
  EXPECT_NE(ok.output.find("[exit code 0, "), std::string::npos);
  ToolResult failed = call("shell", {{"command", "exit 4"}});
  EXPECT_TRUE(failed.is_error);
  EXPECT_EQ(failed.output.rfind("[exit code 4, ", 0), 0u);
  ToolResult slow = call("shell", {{"command", "echo started; sleep 20"}, {"timeout_ms", 200}});
  EXPECT_TRUE(slow.is_error);
  EXPECT_EQ(slow.output,
            "started\n\n[ERROR: Command timed out after 200ms. Partial output is shown above.\nYou can "
            "retry with a longer timeout by setting the timeout_ms parameter.]");
}

TEST_F(AgentToolsTest, SearchToolsAndBadArguments) {
  EXPECT_EQ(call("grep", {{"pattern", "print"}}).output, "app.py:2:    print(\"hi\")\n");
  EXPECT_EQ(call("grep", {{"pattern", "absent"}}).output, "no matches");
  EXPECT_EQ(call("glob", {{"pattern", "*.py"}}).output, "app.py\n");
  ToolResult bad = call("read_file", {{"file_path", 3}});
  EXPECT_TRUE(bad.is_error);
  EXPECT_EQ(bad.output, "invalid arguments: 'file_path' must be a string");
  EXPECT_EQ(call("shell", {{"command", "true"}, {"timeout_ms", "soon"}}).output,
            "invalid arguments: 'timeout_ms' must be an integer");
  EXPECT_EQ(run_tool(*core_tool("glob"), json::array(), *env_).output, "invalid arguments: expected a JSON object");
}

}  // namespace
}  // namespace attractor
