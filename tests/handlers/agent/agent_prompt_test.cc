// The coding agent's system prompt: base instructions per profile, the environment block with
// the git snapshot, and project instruction files found from the git root down.

#include "handlers/agent/agent_prompt.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "handlers/agent/local_environment.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

class AgentPromptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(dir_.path());
    fs::create_directories(root_ / "repo/service/.codex");
    std::ofstream(root_ / "repo/AGENTS.md") << "Top-level rules.\n";
    std::ofstream(root_ / "repo/CLAUDE.md") << "Claude rules.\n";
    std::ofstream(root_ / "repo/GEMINI.md") << "Gemini rules.\n";
    std::ofstream(root_ / "repo/service/AGENTS.md") << "Service rules.\n";
    std::ofstream(root_ / "repo/service/.codex/instructions.md") << "Codex rules.\n";
  }
  testing::TempDir dir_;
  fs::path root_;
};

TEST_F(AgentPromptTest, ProjectFilesComeFromTheRootDownForTheProfile) {
  const std::string service = (root_ / "repo/service").string();
  const std::string repo = (root_ / "repo").string();
  EXPECT_EQ(
      agent_project_instructions(service, repo, "anthropic"),
      "## AGENTS.md\nTop-level rules.\n\n## CLAUDE.md\nClaude rules.\n\n## service/AGENTS.md\nService rules.\n\n");
  EXPECT_EQ(agent_project_instructions(service, repo, "openai"),
            "## AGENTS.md\nTop-level rules.\n\n## service/AGENTS.md\nService rules.\n\n"
            "## service/.codex/instructions.md\nCodex rules.\n\n");
  EXPECT_EQ(agent_project_instructions(service, "", "openai"),
            "## AGENTS.md\nService rules.\n\n## .codex/instructions.md\nCodex rules.\n\n")
      << "outside a repository only the working directory counts";
  std::string cut = agent_project_instructions(service, repo, "anthropic", 20);
  EXPECT_EQ(cut, "## AGENTS.md\nTop-lev\n[Project instructions truncated at 32KB]\n");
}

TEST_F(AgentPromptTest, TheEnvironmentBlockHasTheGitSnapshot) {
  const fs::path repo = root_ / "repo";
  ASSERT_EQ(std::system(("cd " + repo.string() +
                         " && git init -q -b trunk && git -c user.email=a@b -c user.name=t add AGENTS.md && "
                         "git -c user.email=a@b -c user.name=t commit -q -m 'first commit'")
                            .c_str()),
            0);
  LocalExecutionEnvironment env(repo.string());
  const std::string block = agent_environment_block(env, "gpt-test", "2026-11-26");
  EXPECT_NE(block.find("Working directory: " + repo.string() + "\n"), std::string::npos) << block;
  EXPECT_NE(block.find("Is git repository: true\nGit branch: trunk\nChanged or untracked files: 3\n"),
            std::string::npos)
      << block;
  EXPECT_NE(block.find("first commit"), std::string::npos);
  EXPECT_NE(block.find("Today's date: 2026-11-26\nModel: gpt-test\n</environment>"), std::string::npos);

  const std::string prompt = agent_system_prompt("anthropic", env, "claude-test", "2026-11-26", "Never touch vendor/.");
  EXPECT_NE(prompt.find("edit_file"), std::string::npos);
  EXPECT_NE(prompt.find("# Project instructions\n## AGENTS.md\nTop-level rules."), std::string::npos);
  EXPECT_EQ(prompt.substr(prompt.size() - 45), "# Pipeline instructions\nNever touch vendor/.\n");

  LocalExecutionEnvironment outside(root_.string());
  EXPECT_NE(agent_environment_block(outside, "m", "d").find("Is git repository: false\nPlatform: linux"),
            std::string::npos);
}

TEST(AgentBaseInstructionsTest, EachProfileTeachesItsEditTool) {
  EXPECT_NE(agent_base_instructions("openai").find("apply_patch"), std::string::npos);
  EXPECT_EQ(agent_base_instructions("openai").find("edit_file"), std::string::npos);
  EXPECT_NE(agent_base_instructions("anthropic").find("edit_file"), std::string::npos);
}

}  // namespace
}  // namespace attractor
