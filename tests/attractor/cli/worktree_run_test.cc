// Worktree runs through the real binary on real repositories (docs/workspace.md): the user's
// checkout stays byte-identical, the run branch has one commit per changing stage with its
// trailers, a killed run's resume restores the tree and keeps the partial edits as a patch,
// parallel branches share the fan-out node's commit, bad checkouts are refused before anything
// is written, and diff, status and runs show the run's change.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/git_repo.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessOptions;
using hardening::ProcessResult;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;
using testing::git;
using testing::make_repo;
using testing::tree_snapshot;

const char* const kEdits = testing::kWorktreeEditsGraph;

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

class WorktreeRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    make_repo(repo_, {{"a.txt", "hello\n"}, {"gone.txt", "bye\n"}, {".gitignore", "*.log\n"}});
    spit(repo_ + "/notes.txt", "untracked, mine\n");
    spit(repo_ + "/build.log", "ignored, mine\n");
  }

  /// `attractor ARGS...` started in the repository.
  ProcessResult in_repo(std::vector<std::string> args) {
    ProcessOptions options;
    options.prefix = {"env", "-C", repo_};
    return hardening::run_attractor(args, options);
  }
  std::string graph(const std::string& name, const std::string& text) {
    spit(dir_.sub(name), text);
    return dir_.sub(name);
  }
  nlohmann::json workspace() { return read_json(run_ + "/manifest.json")["workspace"]; }
  std::vector<std::string> commits() {
    return read_json(run_ + "/checkpoint.json")["completed_commits"].get<std::vector<std::string>>();
  }

  ScratchDir dir_;
  std::string repo_ = dir_.sub("repo");
  std::string run_ = dir_.sub("runs/edits");
};

TEST_F(WorktreeRunTest, LeavesTheCheckoutByteIdenticalAndCommitsEveryChangingStage) {
  const std::string before = tree_snapshot(repo_);
  const std::string status_before = git(repo_, {"status", "--porcelain", "--ignored"});
  ProcessResult r = in_repo({"run", graph("edits.dot", kEdits), "--logs-root", run_});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  EXPECT_EQ(tree_snapshot(repo_), before);
  EXPECT_EQ(git(repo_, {"status", "--porcelain", "--ignored"}), status_before);
  EXPECT_EQ(git(repo_, {"rev-parse", "--abbrev-ref", "HEAD"}), "main\n");

  const nlohmann::json ws = workspace();
  const std::string branch = ws["branch"];
  const std::string base = ws["base_commit"];
  EXPECT_EQ(ws["mode"], "worktree");
  EXPECT_EQ(ws["worktree"], fs::path(run_).string() + "/worktree");
  EXPECT_EQ(base + "\n", git(repo_, {"rev-parse", "main"}));
  EXPECT_NE(r.err.find("workspace: worktree " + run_ + "/worktree on branch " + branch + " (from main at " +
                       base.substr(0, 12) + ")"),
            std::string::npos)
      << r.err;

  EXPECT_EQ(git(repo_, {"log", "--format=%s", base + ".." + branch}), "more: success\nedit: success\n");
  const std::string run_id = read_json(run_ + "/checkpoint.json")["run_id"];
  EXPECT_EQ(branch, "attractor/" + run_id);
  // Checkpoints: 1 before start, then one per stage: start 2, edit 3, look 4, more 5.
  EXPECT_EQ(git(repo_, {"log", "-1", "--format=%(trailers)", branch}),
            "Attractor-Run: " + run_id + "\nAttractor-Node: more\nAttractor-Visit: 1\nAttractor-Checkpoint: 5\n\n");
  const std::vector<std::string> c = commits();
  ASSERT_EQ(c.size(), 4u);  // start, edit, look, more
  EXPECT_EQ(c[0], "");
  EXPECT_EQ(c[1] + "\n", git(repo_, {"rev-parse", branch + "^"}));
  EXPECT_EQ(c[2], "");
  EXPECT_EQ(c[3] + "\n", git(repo_, {"rev-parse", branch}));
  EXPECT_EQ(git(repo_, {"show", branch + ":a.txt"}), "hello\nworld\n");
  EXPECT_EQ(git(repo_, {"show", branch + ":src/new.txt"}), "new\n");
  EXPECT_FALSE(fs::exists(run_ + "/worktree/notes.txt")) << "untracked files stay in the checkout";
  EXPECT_NE(slurp(run_ + "/events.jsonl").find("\"event\":\"StageCommitted\""), std::string::npos);
}

TEST_F(WorktreeRunTest, DiffStatusAndRunsShowTheChange) {
  ASSERT_EQ(in_repo({"run", graph("edits.dot", kEdits), "-q", "--logs-root", run_}).exit_code, 0);
  const std::string branch = workspace()["branch"];
  const std::string base = workspace()["base_commit"];

  ProcessResult whole = hardening::run_attractor({"diff", run_});
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(whole.out, git(repo_, {"diff", "--binary", base, branch}));
  ProcessResult edit = hardening::run_attractor({"diff", run_, "--stage", "edit@1"});
  EXPECT_EQ(edit.out, git(repo_, {"diff", "--binary", base, branch + "^"}));
  ProcessResult look = hardening::run_attractor({"diff", run_, "--stage", "look"});
  EXPECT_EQ(look.exit_code, 0);
  EXPECT_EQ(look.out, "");
  EXPECT_EQ(hardening::run_attractor({"diff", run_, "--files"}).out, "3\n");

  ProcessResult nope = hardening::run_attractor({"diff", run_, "--stage", "edit@2"});
  EXPECT_EQ(nope.exit_code, 2);
  EXPECT_EQ(nope.err,
            "attractor diff: node 'edit' completed 1 visit, not 2 (valid points: start@1, edit@1, look@1, more@1)\n");
  EXPECT_EQ(hardening::run_attractor({"diff", run_, "--stage", "ghost"}).err,
            "attractor diff: the run never completed node 'ghost' (valid points: start@1, edit@1, look@1, more@1)\n");

  ProcessResult status = hardening::run_attractor({"status", run_});
  EXPECT_NE(status.out.find("workspace: worktree " + run_ + "/worktree on branch " + branch), std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find("changed:  3 files (attractor diff " + run_ + ")"), std::string::npos) << status.out;
  nlohmann::json j = nlohmann::json::parse(hardening::run_attractor({"status", run_, "--json"}).out);
  EXPECT_EQ(j["changed_files"], 3);
  EXPECT_EQ(j["workspace"]["branch"], branch);

  ProcessResult runs = hardening::run_attractor({"runs", "--logs-root", dir_.sub("runs")});
  EXPECT_NE(runs.out.find("BRANCH"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find(branch), std::string::npos) << runs.out;
}

TEST_F(WorktreeRunTest, AnInPlaceRunSaysSoAndHasNoDiff) {
  const std::string in_place = R"(digraph p {
  start [shape=Mdiamond]
  edit [shape=parallelogram, tool_command="printf 'x\n' > made.txt"]
  exit [shape=Msquare]
  start -> edit -> exit
}
)";
  ProcessResult r = in_repo({"run", graph("p.dot", in_place), "--logs-root", run_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("workspace: in-place (" + fs::canonical(repo_).string() + ")"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(repo_ + "/made.txt"), "x\n");
  EXPECT_TRUE(read_json(run_ + "/manifest.json")["workspace"].is_null());
  ProcessResult d = hardening::run_attractor({"diff", run_});
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_EQ(d.err, "attractor diff: " + run_ +
                       " is an in-place run: its stages commit nothing (run with --workspace worktree)\n");
  EXPECT_NE(hardening::run_attractor({"status", run_}).out.find("workspace: in-place"), std::string::npos);
}

TEST_F(WorktreeRunTest, TheFlagOverridesTheGraph) {
  std::string text = kEdits;
  text.replace(text.find(", workspace=\"worktree\""), std::string(", workspace=\"worktree\"").size(), "");
  ASSERT_EQ(in_repo({"run", graph("p.dot", text), "-q", "--workspace", "worktree", "--logs-root", run_}).exit_code, 0);
  EXPECT_EQ(workspace()["mode"], "worktree");
  EXPECT_EQ(slurp(repo_ + "/a.txt"), "hello\n");
  ScratchDir other;
  ProcessResult r = in_repo(
      {"run", graph("edits.dot", kEdits), "-q", "--workspace", "in-place", "--logs-root", other.sub("run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(repo_ + "/a.txt"), "hello\nworld\n");
}

TEST_F(WorktreeRunTest, ADryRunNamesThePlannedWorktreeAndMakesNothing) {
  ProcessResult r = in_repo({"run", graph("edits.dot", kEdits), "--dry-run", "--logs-root", run_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string head = git(repo_, {"rev-parse", "HEAD"}).substr(0, 12);
  EXPECT_NE(r.out.find("workspace: worktree " + run_ + "/worktree on branch attractor/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(from main at " + head + ")"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(run_));
  EXPECT_EQ(git(repo_, {"branch", "--list", "attractor/*"}), "");
  ProcessResult j = in_repo({"run", graph("edits.dot", kEdits), "--dry-run", "--json", "--logs-root", run_});
  EXPECT_EQ(nlohmann::json::parse(j.out)["workspace"]["mode"], "worktree");
}

TEST_F(WorktreeRunTest, BadCheckoutsAreRefusedBeforeAnythingIsWritten) {
  const std::string edits = graph("edits.dot", kEdits);
  spit(repo_ + "/a.txt", "uncommitted\n");
  const std::string before = tree_snapshot(repo_);
  ProcessResult dirty = in_repo({"run", edits, "--logs-root", run_});
  EXPECT_EQ(dirty.exit_code, 2);
  EXPECT_NE(dirty.err.find(fs::canonical(repo_).string() + " has uncommitted changes to tracked files (a.txt)"),
            std::string::npos)
      << dirty.err;
  EXPECT_FALSE(fs::exists(run_));
  EXPECT_EQ(tree_snapshot(repo_), before);
  EXPECT_EQ(git(repo_, {"branch", "--list", "attractor/*"}), "");

  ProcessOptions elsewhere;
  elsewhere.prefix = {"env", "-C", dir_.path()};
  ProcessResult plain = hardening::run_attractor({"run", edits, "--logs-root", run_}, elsewhere);
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("is not inside a git repository; a worktree run needs one"), std::string::npos) << plain.err;
  EXPECT_FALSE(fs::exists(run_));

  git(repo_, {"checkout", "-q", "--", "a.txt"});
  std::string absolute = kEdits;
  absolute.replace(absolute.find("tool_command=\"cat a.txt\""), 0, "workdir=\"/tmp\", ");
  ProcessResult abs = in_repo({"run", graph("abs.dot", absolute), "--logs-root", run_});
  EXPECT_EQ(abs.exit_code, 2);
  EXPECT_NE(abs.err.find("node 'look' sets an absolute workdir, which would leave the run's worktree"),
            std::string::npos)
      << abs.err;
  EXPECT_FALSE(fs::exists(run_));
}

TEST_F(WorktreeRunTest, ParallelBranchesAreCommittedTogetherAsTheFanOutStage) {
  const std::string parallel = R"(digraph par {
  graph [goal="edit", workspace="worktree"]
  start [shape=Mdiamond]
  split [shape=component]
  left  [shape=parallelogram, tool_command="printf 'l\n' > left.txt"]
  right [shape=parallelogram, tool_command="printf 'r\n' > right.txt"]
  join  [shape=tripleoctagon]
  exit  [shape=Msquare]
  start -> split
  split -> left -> join
  split -> right -> join
  join -> exit
}
)";
  ProcessResult r = in_repo({"run", graph("par.dot", parallel), "--logs-root", run_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[worktree_parallel]"), std::string::npos) << "lint warns: " << r.err;
  const std::string branch = workspace()["branch"];
  const std::string base = workspace()["base_commit"];
  EXPECT_EQ(git(repo_, {"log", "--format=%s", base + ".." + branch}), "split: success\n");
  EXPECT_EQ(git(repo_, {"diff", "--name-only", base, branch}), "left.txt\nright.txt\n");
  const nlohmann::json cp = read_json(run_ + "/checkpoint.json");
  const auto nodes = cp["completed_nodes"].get<std::vector<std::string>>();
  const auto c = cp["completed_commits"].get<std::vector<std::string>>();
  ASSERT_EQ(nodes.size(), c.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(!c[i].empty(), nodes[i] == "split") << nodes[i];
  }
}

TEST_F(WorktreeRunTest, AKilledStagesEditsArePatchedAsideAndTheResumeStartsFromTheCheckpointsTree) {
  const std::string release = dir_.sub("release");
  const std::string slow = std::string(R"(digraph slow {
  graph [goal="edit", workspace="worktree"]
  start [shape=Mdiamond]
  first [shape=parallelogram, tool_command="printf 'one\n' > a.txt"]
  work  [shape=parallelogram, tool_command="printf 'partial\n' > half.txt; printf 'x\n' >> a.txt; )") +
                           "while [ ! -f " + release + R"( ]; do sleep 0.05; done; printf 'done\n' > half.txt"]
  exit  [shape=Msquare]
  start -> first -> work -> exit
}
)";
  const std::string path = graph("slow.dot", slow);
  pid_t engine = hardening::spawn_program("/usr/bin/env",
                                          {"-C", repo_, ATTRACTOR_BINARY_PATH, "run", path, "-q", "--logs-root", run_});
  for (int i = 0; i < 2000 && !fs::exists(run_ + "/worktree/half.txt"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(fs::exists(run_ + "/worktree/half.txt"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(engine, SIGKILL);
  int status = 0;
  ::waitpid(engine, &status, 0);
  spit(release, "");

  ProcessOptions options;
  options.prefix = {"env", "-C", repo_};
  ProcessResult resumed = hardening::run_attractor({"resume", run_, "-q"}, options);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;

  const std::string patch = slurp(run_ + "/work/interrupted-1.patch");
  EXPECT_NE(patch.find("+partial"), std::string::npos) << patch;
  EXPECT_NE(patch.find("+x"), std::string::npos) << patch;
  EXPECT_NE(slurp(run_ + "/events.jsonl").find("\"event\":\"WorkspaceRestored\""), std::string::npos);
  EXPECT_EQ(slurp(run_ + "/worktree/half.txt"), "done\n");
  EXPECT_EQ(slurp(run_ + "/worktree/a.txt"), "one\nx\n") << "the resumed stage started from first's tree";
  const std::string branch = workspace()["branch"];
  EXPECT_EQ(git(repo_, {"log", "--format=%s", workspace()["base_commit"].get<std::string>() + ".." + branch}),
            "work: success\nfirst: success\n");
  EXPECT_EQ(git(run_ + "/worktree", {"status", "--porcelain"}), "");
  EXPECT_EQ(slurp(repo_ + "/a.txt"), "hello\n");

  spit(dir_.sub("p.patch"), patch);
  git(run_ + "/worktree", {"reset", "-q", "--hard", branch + "^"});
  git(run_ + "/worktree", {"apply", "--binary", dir_.sub("p.patch")});
  EXPECT_EQ(slurp(run_ + "/worktree/half.txt"), "partial\n") << "the patch brings the interrupted edits back";
}

}  // namespace
}  // namespace attractor
