// Planning and making a run's worktree (docs/workspace.md, "Refusals"): every bad checkout is
// refused with its message before anything changes; a good one gets a branch and a worktree from
// HEAD. Against real repositories made with the git command.

#include "attractor/workspace/libgit2/worktree_setup.h"

#include <filesystem>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "support/git_repo.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;
using testing::git;
using testing::make_repo;
using testing::tree_snapshot;

class WorktreeSetupTest : public ::testing::Test {
 protected:
  void SetUp() override { make_repo(repo_, {{"a.txt", "hello\n"}, {"src/b.txt", "b\n"}}); }

  std::variant<WorktreePlan, std::string> plan(const std::string& source) {
    return plan_worktree(source, run_dir_, "123-abcdef");
  }
  std::string refusal(const std::string& source) {
    auto p = plan(source);
    EXPECT_TRUE(std::holds_alternative<std::string>(p)) << "not refused";
    return std::holds_alternative<std::string>(p) ? std::get<std::string>(p) : "";
  }

  ScratchDir dir_;
  std::string repo_ = dir_.sub("repo");
  std::string run_dir_ = dir_.sub("run");
};

TEST_F(WorktreeSetupTest, PlansFromHeadAndMakesTheBranchAndWorktree) {
  spit(repo_ + "/untracked.txt", "mine\n");
  auto p = plan(repo_ + "/src");
  ASSERT_TRUE(std::holds_alternative<WorktreePlan>(p)) << std::get<std::string>(p);
  const WorktreePlan& plan = std::get<WorktreePlan>(p);
  EXPECT_EQ(plan.repository, fs::canonical(repo_).string());
  EXPECT_EQ(plan.subdir, "src");
  EXPECT_EQ(plan.branch, "attractor/123-abcdef");
  EXPECT_EQ(plan.worktree_name, "attractor-123-abcdef");
  EXPECT_EQ(plan.worktree, fs::path(run_dir_).lexically_normal().string() + "/worktree");
  EXPECT_EQ(plan.workdir(), plan.worktree + "/src");
  EXPECT_EQ(plan.base_branch, "main");
  EXPECT_EQ(plan.base_commit + "\n", git(repo_, {"rev-parse", "HEAD"}));
  EXPECT_FALSE(fs::exists(run_dir_)) << "planning changes nothing";

  const std::string before = tree_snapshot(repo_);
  fs::create_directories(run_dir_);
  create_worktree(plan);
  EXPECT_EQ(tree_snapshot(repo_), before);
  EXPECT_EQ(git(plan.worktree, {"rev-parse", "--abbrev-ref", "HEAD"}), "attractor/123-abcdef\n");
  EXPECT_EQ(slurp(plan.worktree + "/a.txt"), "hello\n");
  EXPECT_FALSE(fs::exists(plan.worktree + "/untracked.txt")) << "untracked files are not carried over";
  EXPECT_EQ(git(repo_, {"rev-parse", "--abbrev-ref", "HEAD"}), "main\n");
}

TEST_F(WorktreeSetupTest, RoundTripsThroughTheManifestRecord) {
  auto p = plan(repo_);
  ASSERT_TRUE(std::holds_alternative<WorktreePlan>(p));
  const WorktreePlan& plan = std::get<WorktreePlan>(p);
  nlohmann::json j = plan.to_json();
  EXPECT_EQ(j["mode"], "worktree");
  WorktreePlan back = WorktreePlan::from_json(j);
  EXPECT_EQ(back.to_json(), j);
  j.erase("branch");
  EXPECT_THROW(
      {
        try {
          WorktreePlan::from_json(j);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "workspace.branch is not a string");
          throw;
        }
      },
      std::runtime_error);
}

TEST_F(WorktreeSetupTest, RefusesADirectoryOutsideAnyRepository) {
  fs::create_directories(dir_.sub("plain"));
  EXPECT_EQ(refusal(dir_.sub("plain")),
            fs::canonical(dir_.sub("plain")).string() +
                " is not inside a git repository; a worktree run needs one (git init and a first commit), or run "
                "with --workspace in-place");
}

TEST_F(WorktreeSetupTest, RefusesAMissingDirectory) {
  EXPECT_EQ(refusal(dir_.sub("nowhere")), "the working directory " + dir_.sub("nowhere") + " is not a directory");
}

TEST_F(WorktreeSetupTest, RefusesABareRepository) {
  git(dir_.path(), {"init", "-q", "--bare", "bare.git"});
  EXPECT_EQ(refusal(dir_.sub("bare.git")),
            fs::canonical(dir_.sub("bare.git")).string() +
                " is a bare repository: it has no working tree to start a run's worktree from");
}

TEST_F(WorktreeSetupTest, RefusesAnUnbornHead) {
  fs::create_directories(dir_.sub("empty"));
  git(dir_.sub("empty"), {"init", "-q", "-b", "main"});
  EXPECT_EQ(refusal(dir_.sub("empty")), fs::canonical(dir_.sub("empty")).string() +
                                            " has no commit yet (HEAD is unborn): commit something first, or run "
                                            "with --workspace in-place");
}

TEST_F(WorktreeSetupTest, RefusesADetachedHead) {
  git(repo_, {"checkout", "-q", "--detach"});
  std::string head = git(repo_, {"rev-parse", "HEAD"}).substr(0, 12);
  EXPECT_EQ(refusal(repo_), "HEAD of " + fs::canonical(repo_).string() + " is detached (at " + head +
                                "): a run's branch starts from a branch; check one out (git switch NAME, or git "
                                "switch -c NAME), or run with --workspace in-place");
}

TEST_F(WorktreeSetupTest, RefusesACheckoutOfAnotherRunsBranch) {
  git(repo_, {"switch", "-q", "-c", "attractor/1-aaaaaa"});
  EXPECT_EQ(refusal(repo_), fs::canonical(repo_).string() +
                                " has the run branch attractor/1-aaaaaa checked out, which that run commits to: fork "
                                "the run instead (attractor fork), or check out another branch");
}

TEST_F(WorktreeSetupTest, RefusesALockedIndex) {
  spit(repo_ + "/.git/index.lock", "");
  EXPECT_EQ(refusal(repo_), fs::canonical(repo_).string() + " is locked by another git process (" +
                                fs::canonical(repo_).string() +
                                "/.git/index.lock exists): wait for it to finish, or remove that file if no git "
                                "command is running");
}

TEST_F(WorktreeSetupTest, RefusesUncommittedChangesNamingThem) {
  for (const char* name : {"c.txt", "d.txt", "e.txt", "f.txt"}) spit(repo_ + "/" + name, "x\n");
  git(repo_, {"add", "-A"});
  git(repo_, {"commit", "-q", "-m", "more"});
  for (const char* name : {"a.txt", "c.txt", "d.txt", "e.txt", "f.txt"}) spit(repo_ + "/" + name, "changed\n");
  const std::string before = tree_snapshot(repo_);
  std::string message = refusal(repo_);
  EXPECT_EQ(
      message.substr(0, message.find(';')),
      fs::canonical(repo_).string() + " has uncommitted changes to tracked files (a.txt, c.txt, d.txt and 2 more)");
  EXPECT_NE(message.find("commit or stash them first, or run with --workspace in-place"), std::string::npos);
  EXPECT_EQ(tree_snapshot(repo_), before);
}

TEST_F(WorktreeSetupTest, RefusesAStagedChange) {
  spit(repo_ + "/new.txt", "staged\n");
  git(repo_, {"add", "new.txt"});
  EXPECT_NE(refusal(repo_).find("uncommitted changes to tracked files (new.txt)"), std::string::npos);
}

TEST_F(WorktreeSetupTest, RefusesABranchThatExists) {
  git(repo_, {"branch", "attractor/123-abcdef"});
  EXPECT_EQ(refusal(repo_), "branch attractor/123-abcdef exists already in " + fs::canonical(repo_).string());
}

TEST_F(WorktreeSetupTest, RefusesAWorktreeNameThatExists) {
  git(repo_, {"worktree", "add", "-q", "-b", "other", dir_.sub("attractor-123-abcdef")});
  EXPECT_EQ(refusal(repo_), fs::canonical(repo_).string() + " has a worktree named attractor-123-abcdef already");
}

TEST_F(WorktreeSetupTest, RefusesAWorktreePathThatExists) {
  fs::create_directories(run_dir_ + "/worktree");
  EXPECT_EQ(refusal(repo_), fs::path(run_dir_).lexically_normal().string() +
                                "/worktree exists already: a run's worktree must be a new directory");
}

}  // namespace
}  // namespace attractor
