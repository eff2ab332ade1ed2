// Tool output truncation and command timeouts of the coding agent (spec §5).

#include "handlers/agent/tool_output.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

TEST(ToolOutputTest, OutputThatFitsIsUnchanged) {
  EXPECT_EQ(truncate_output("hello", 5, TruncationMode::kHeadTail), "hello");
  EXPECT_EQ(truncate_tool_output("a\nb\n", "shell"), "a\nb\n");
}

TEST(ToolOutputTest, HeadTailKeepsBothEndsAndSaysHowMuchWentMissing) {
  EXPECT_EQ(truncate_output("abcdefghij", 4, TruncationMode::kHeadTail),
            "ab\n\n[WARNING: Tool output was truncated. 6 characters were removed from the middle. The full output "
            "is available in the event stream. If you need to see specific parts, re-run the tool with more "
            "targeted parameters.]\n\nij");
}

TEST(ToolOutputTest, TailKeepsTheEnd) {
  EXPECT_EQ(truncate_output("abcdefghij", 3, TruncationMode::kTail),
            "[WARNING: Tool output was truncated. First 7 characters were removed. The full output is available in "
            "the event stream.]\n\nhij");
}

TEST(ToolOutputTest, CountsCharactersNotBytesAndNeverSplitsOne) {
  const std::string text = "ééééé";  // 5 characters, 10 bytes
  EXPECT_EQ(truncate_output(text, 5, TruncationMode::kTail), text);
  std::string cut = truncate_output(text, 2, TruncationMode::kHeadTail);
  EXPECT_EQ(cut.substr(0, 2), "é");
  EXPECT_EQ(cut.substr(cut.size() - 2), "é");
  EXPECT_NE(cut.find("3 characters were removed"), std::string::npos);
}

TEST(ToolOutputTest, LinesAreCutAfterCharacters) {
  EXPECT_EQ(truncate_lines("1\n2\n3\n4\n5", 2), "1\n[... 3 lines omitted ...]\n5");
  EXPECT_EQ(truncate_lines("1\n2\n3\n4\n5", 3), "1\n[... 2 lines omitted ...]\n4\n5");
  std::string many;
  for (int i = 0; i < 300; ++i) many += std::to_string(i) + "\n";
  std::string shell = truncate_tool_output(many, "shell");
  EXPECT_NE(shell.find("[... 45 lines omitted ...]"), std::string::npos) << "301 lines (the last empty) to 256";
  EXPECT_EQ(shell.substr(0, 4), "0\n1\n");
  std::string huge_line(100'000, 'x');
  std::string two = truncate_tool_output(huge_line + "\n" + huge_line, "shell");
  EXPECT_LT(two.size(), 31'000u) << "two huge lines are cut by characters first";
}

TEST(ToolOutputTest, DefaultsFollowTheSpecAndOverridesWin) {
  EXPECT_EQ(default_output_limit("read_file").max_chars, 50'000u);
  EXPECT_EQ(default_output_limit("read_file").mode, TruncationMode::kHeadTail);
  EXPECT_EQ(default_output_limit("grep").max_lines, 200u);
  EXPECT_EQ(default_output_limit("write_file").max_chars, 1'000u);
  EXPECT_EQ(default_output_limit("custom").max_chars, 20'000u);
  std::map<std::string, ToolOutputLimit> overrides = {{"shell", {3, TruncationMode::kTail, std::nullopt}}};
  EXPECT_EQ(truncate_tool_output("abcdef", "shell", overrides).substr(0, 9), "[WARNING:");
}

TEST(ToolOutputTest, CommandTimeoutsHaveADefaultAndACeiling) {
  EXPECT_EQ(command_timeout_ms(std::nullopt), 10'000);
  EXPECT_EQ(command_timeout_ms(0), 10'000);
  EXPECT_EQ(command_timeout_ms(2'500), 2'500);
  EXPECT_EQ(command_timeout_ms(5'000'000), 600'000);
  EXPECT_EQ(command_timeout_message(300),
            "[ERROR: Command timed out after 300ms. Partial output is shown above.\nYou can retry with a longer "
            "timeout by setting the timeout_ms parameter.]");
}

}  // namespace
}  // namespace attractor
