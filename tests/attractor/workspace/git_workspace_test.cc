// The commit of every stage, the patch of an interrupted stage and the reset before a resume
// (docs/workspace.md), on a real worktree; the results are read back with the git command.

#include "attractor/workspace/libgit2/git_workspace.h"

#include <filesystem>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "attractor/workspace/libgit2/worktree_setup.h"
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

StageCommit stage(const std::string& node, std::int64_t visit = 1, std::uint64_t seq = 3) {
  return {"123-abcdef", node, visit, "success", seq, 1700000000000};
}

class GitWorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    make_repo(repo_, {{"a.txt", "hello\n"}, {".gitignore", "*.log\n"}, {"gone.txt", "bye\n"}});
    auto p = plan_worktree(repo_, run_dir_, "123-abcdef");
    ASSERT_TRUE(std::holds_alternative<WorktreePlan>(p)) << std::get<std::string>(p);
    plan_ = std::get<WorktreePlan>(p);
    fs::create_directories(run_dir_);
    create_worktree(plan_);
    wt_ = plan_.worktree;
  }

  ScratchDir dir_;
  std::string repo_ = dir_.sub("repo");
  std::string run_dir_ = dir_.sub("run");
  WorktreePlan plan_;
  std::string wt_;
};

TEST(StageCommitMessageTest, NamesTheStageAndCarriesTheTrailers) {
  EXPECT_EQ(stage_commit_message(stage("edit")),
            "edit: success\n\nAttractor-Run: 123-abcdef\nAttractor-Node: edit\nAttractor-Visit: 1\n"
            "Attractor-Checkpoint: 3\n");
  EXPECT_EQ(stage_commit_message({"r", "fix", 2, "fail", 9, 0}),
            "fix (visit 2): fail\n\nAttractor-Run: r\nAttractor-Node: fix\nAttractor-Visit: 2\n"
            "Attractor-Checkpoint: 9\n");
}

TEST_F(GitWorkspaceTest, CommitsEveryKindOfChangeWithTheTrailersAndAFixedIdentity) {
  GitWorkspace ws(wt_, plan_.base_commit);
  spit(wt_ + "/a.txt", "hello\nworld\n");
  fs::create_directories(wt_ + "/dir");
  spit(wt_ + "/dir/new.txt", "new\n");
  fs::remove(wt_ + "/gone.txt");
  spit(wt_ + "/build.log", "ignored\n");
  std::string id = ws.commit_stage(stage("edit"));
  ASSERT_EQ(id.size(), 40u);
  EXPECT_EQ(git(wt_, {"rev-parse", "HEAD"}), id + "\n");
  EXPECT_EQ(ws.head_commit(), id);
  EXPECT_EQ(git(wt_, {"log", "-1", "--format=%B"}), stage_commit_message(stage("edit")) + "\n");
  EXPECT_EQ(git(wt_, {"log", "-1", "--format=%an <%ae> %at %cn"}),
            "attractor <attractor@localhost> 1700000000 attractor\n");
  EXPECT_EQ(git(wt_, {"rev-parse", "HEAD^"}), plan_.base_commit + "\n");
  EXPECT_EQ(git(wt_, {"diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"}),
            "M\ta.txt\nA\tdir/new.txt\nD\tgone.txt\n");
  EXPECT_EQ(git(wt_, {"status", "--porcelain"}), "") << "the index matches the commit";
}

// After the first commit, a commit stages only what the change watch saw; it must make the same
// trees as a full scan for every kind of change, ignored files and a moved directory included.
TEST_F(GitWorkspaceTest, CommitsAfterTheFirstMakeTheTreesAFullScanMakes) {
  GitWorkspace ws(wt_, plan_.base_commit);
  spit(wt_ + "/first.txt", "1\n");
  ASSERT_NE(ws.commit_stage(stage("one")), "");
  auto step = [&](const std::string& node, auto&& edit) {
    edit();
    std::string commit = ws.commit_stage(stage(node));
    EXPECT_EQ(git(wt_, {"status", "--porcelain"}), "") << node << ": everything was committed";
    return commit;
  };
  step("edit", [&] { spit(wt_ + "/a.txt", "changed\n"); });
  step("new dir", [&] {
    fs::create_directories(wt_ + "/src/deep");
    spit(wt_ + "/src/deep/x.txt", "x\n");
  });
  step("delete", [&] { fs::remove(wt_ + "/gone.txt"); });
  EXPECT_EQ(step("ignored", [&] { spit(wt_ + "/build.log", "ignored\n"); }), "") << "an ignored file makes no commit";
  step("mode", [&] { fs::permissions(wt_ + "/a.txt", fs::perms::owner_exec, fs::perm_options::add); });
  step("move dir", [&] { fs::rename(wt_ + "/src", wt_ + "/lib"); });
  step("after move", [&] { spit(wt_ + "/lib/deep/x.txt", "y\n"); });
  step("replace", [&] {
    fs::remove(wt_ + "/first.txt");
    fs::create_directories(wt_ + "/first.txt");
    spit(wt_ + "/first.txt/inside.txt", "a directory now\n");
  });
  EXPECT_EQ(git(wt_, {"ls-tree", "-r", "--name-only", "HEAD"}),
            ".gitignore\na.txt\nfirst.txt/inside.txt\nlib/deep/x.txt\n");
  EXPECT_EQ(git(wt_, {"show", "HEAD:lib/deep/x.txt"}), "y\n");
  EXPECT_EQ(git(wt_, {"ls-tree", "HEAD", "a.txt"}).substr(0, 6), "100755");
  ws.reset_to(plan_.base_commit);
  spit(wt_ + "/a.txt", "after the reset\n");
  ws.commit_stage(stage("after reset"));
  EXPECT_EQ(git(wt_, {"diff", "--name-only", plan_.base_commit, "HEAD"}), "a.txt\n") << "the reset was forgotten";
}

TEST_F(GitWorkspaceTest, AStageThatChangedNothingMakesNoCommit) {
  GitWorkspace ws(wt_, plan_.base_commit);
  spit(wt_ + "/only.log", "ignored files do not count\n");
  EXPECT_EQ(ws.commit_stage(stage("look")), "");
  EXPECT_EQ(git(wt_, {"rev-parse", "HEAD"}), plan_.base_commit + "\n");
  spit(wt_ + "/a.txt", "hello\n");  // rewritten with the same bytes
  EXPECT_EQ(ws.commit_stage(stage("look", 2)), "");
}

TEST_F(GitWorkspaceTest, CommitsSurviveTheUsersOwnHooksAndSigningConfiguration) {
  spit(repo_ + "/.git/hooks/pre-commit", "#!/bin/sh\nexit 1\n");
  fs::permissions(repo_ + "/.git/hooks/pre-commit", fs::perms::owner_all);
  git(repo_, {"config", "commit.gpgsign", "true"});
  git(repo_, {"config", "user.signingkey", "NOSUCHKEY"});
  GitWorkspace ws(wt_, plan_.base_commit);
  spit(wt_ + "/a.txt", "changed\n");
  EXPECT_EQ(ws.commit_stage(stage("edit")).size(), 40u);
  EXPECT_EQ(git(wt_, {"log", "-1", "--format=%G?"}), "N\n") << "not signed";
}

TEST_F(GitWorkspaceTest, ThePatchOfUncommittedEditsHoldsNewAndBinaryFilesAndApplies) {
  GitWorkspace ws(wt_, plan_.base_commit);
  spit(wt_ + "/a.txt", "half\n");
  spit(wt_ + "/new.txt", "fresh\n");
  spit(wt_ + "/blob.bin", std::string("\0\1\2\3binary", 10));
  fs::create_directories(wt_ + "/deep/er");
  spit(wt_ + "/deep/er/x.txt", "x\n");
  const std::string patch = ws.changes_since(plan_.base_commit);
  EXPECT_NE(patch.find("+half"), std::string::npos);
  EXPECT_NE(patch.find("new.txt"), std::string::npos);
  EXPECT_NE(patch.find("GIT binary patch"), std::string::npos);
  const std::string edited = tree_snapshot(wt_);

  ws.reset_to(plan_.base_commit);
  EXPECT_EQ(slurp(wt_ + "/a.txt"), "hello\n");
  EXPECT_FALSE(fs::exists(wt_ + "/new.txt"));
  EXPECT_FALSE(fs::exists(wt_ + "/blob.bin"));
  EXPECT_FALSE(fs::exists(wt_ + "/deep")) << "directories that held only new files go too";
  EXPECT_EQ(ws.changes_since(plan_.base_commit), "");

  spit(dir_.sub("edits.patch"), patch);
  git(wt_, {"apply", "--binary", dir_.sub("edits.patch")});
  EXPECT_EQ(tree_snapshot(wt_), edited) << "the patch restores the interrupted edits exactly";
}

TEST_F(GitWorkspaceTest, ResetMovesTheBranchBackAndKeepsIgnoredFiles) {
  GitWorkspace ws(wt_, plan_.base_commit);
  spit(wt_ + "/a.txt", "one\n");
  const std::string first = ws.commit_stage(stage("one"));
  spit(wt_ + "/a.txt", "two\n");
  spit(wt_ + "/keep.log", "ignored\n");
  ws.commit_stage(stage("two"));
  ws.reset_to(first);
  EXPECT_EQ(git(wt_, {"rev-parse", "HEAD"}), first + "\n");
  EXPECT_EQ(slurp(wt_ + "/a.txt"), "one\n");
  EXPECT_EQ(slurp(wt_ + "/keep.log"), "ignored\n");
  EXPECT_EQ(git(wt_, {"status", "--porcelain"}), "");
}

TEST_F(GitWorkspaceTest, RecoveryRemovesTheLocksOfAKilledProcess) {
  const std::string git_dir = git(wt_, {"rev-parse", "--absolute-git-dir"});
  const std::string index_lock = git_dir.substr(0, git_dir.size() - 1) + "/index.lock";
  spit(index_lock, "");
  GitWorkspace ws(wt_, plan_.base_commit, /*recover=*/true);
  EXPECT_FALSE(fs::exists(index_lock));
  spit(wt_ + "/a.txt", "after the kill\n");
  EXPECT_EQ(ws.commit_stage(stage("edit")).size(), 40u);
}

TEST_F(GitWorkspaceTest, DiffsBetweenCommitsCountTheFiles) {
  GitWorkspace ws(wt_, plan_.base_commit);
  spit(wt_ + "/a.txt", "one\n");
  spit(wt_ + "/b.txt", "b\n");
  const std::string first = ws.commit_stage(stage("one"));
  CommitDiff d = diff_commits(plan_.repository, plan_.base_commit, first);
  EXPECT_EQ(d.files, 2u);
  EXPECT_EQ(d.patch, git(repo_, {"diff", "--binary", plan_.base_commit, first}));
}

}  // namespace
}  // namespace attractor
