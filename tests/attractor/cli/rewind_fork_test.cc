// `attractor rewind` and `attractor fork` through the real binary on real repositories
// (docs/workspace.md, section 6): a rewind and a fork each end, once resumed, in the tree and the
// checkpoint of the uninterrupted run; nothing is deleted (later stage folders in rewound-N, later
// commits under a ref); a run killed in the middle of a rewind or fork is finished by the next
// command; bad points, in-place runs, running runs and occupied directories are refused.

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

const char kLoop[] = R"(digraph loop {
  graph [goal="loop", workspace="worktree"]
  start [shape=Mdiamond]
  bump  [shape=parallelogram, tool_command="printf x >> n.txt"]
  check [shape=parallelogram, tool_command="test $(wc -c < n.txt) -ge 3"]
  exit  [shape=Msquare]
  start -> bump -> check
  check -> exit [condition="outcome=success"]
  check -> bump [condition="outcome=fail"]
}
)";

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

/// A checkpoint with what differs between runs (times, ids, commit ids) taken out.
nlohmann::json comparable(nlohmann::json cp) {
  for (const char* key : {"timestamp", "timestamp_ms", "run_id", "completed_commits", "usage"}) cp.erase(key);
  cp["context"].erase("internal.run_id");
  return cp;
}

/// The worktree's files (not its `.git` file).
std::string worktree_files(const std::string& run_dir) {
  ScratchDir copy;
  fs::copy(run_dir + "/worktree", copy.sub("w"), fs::copy_options::recursive);
  fs::remove(copy.sub("w/.git"));
  return tree_snapshot(copy.sub("w"));
}

class RewindForkTest : public ::testing::Test {
 protected:
  void SetUp() override { make_repo(repo_, {{"a.txt", "hello\n"}, {"gone.txt", "bye\n"}}); }

  ProcessResult attractor(std::vector<std::string> args) {
    ProcessOptions options;
    options.prefix = {"env", "-C", repo_};
    return hardening::run_attractor(args, options);
  }
  /// `attractor ARGS...` on a disk that SIGKILLs it after the N-th write of a file named `file`.
  ProcessResult killed_after(const std::string& file, int n, std::vector<std::string> args) {
    args.insert(args.begin(), {"kill-after:" + file, std::to_string(n)});
    args.insert(args.begin(), ATTRACTOR_FAULT_BINARY_PATH);
    return hardening::run_program(args);
  }
  std::string graph(const std::string& name, const std::string& text) {
    spit(dir_.sub(name), text);
    return dir_.sub(name);
  }
  /// Runs `text` to its end in `run_dir`; returns its branch.
  std::string finished_run(const std::string& text, const std::string& run_dir) {
    ProcessResult r = attractor({"run", graph("g.dot", text), "-q", "--logs-root", run_dir});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_json(run_dir + "/manifest.json")["workspace"]["branch"];
  }
  std::string subjects(const std::string& run_dir) {
    const nlohmann::json ws = read_json(run_dir + "/manifest.json")["workspace"];
    return git(repo_,
               {"log", "--format=%s", ws["base_commit"].get<std::string>() + ".." + ws["branch"].get<std::string>()});
  }
  std::string tree_of(const std::string& rev) { return git(repo_, {"rev-parse", rev + "^{tree}"}); }

  ScratchDir dir_;
  std::string repo_ = dir_.sub("repo");
  std::string run_ = dir_.sub("runs/edits");
  std::string reference_ = dir_.sub("runs/reference");
};

TEST_F(RewindForkTest, RewindKeepsTheLaterStagesAsideAndResumeEndsAsTheUninterruptedRun) {
  const std::string branch = finished_run(kEdits, run_);
  const std::string old_head = git(repo_, {"rev-parse", branch});
  const nlohmann::json final_cp = read_json(run_ + "/checkpoint.json");
  const std::string final_files = worktree_files(run_);
  const std::string edit_commit = final_cp["completed_commits"][1];
  const std::string run_id = final_cp["run_id"];

  ProcessResult r = attractor({"rewind", run_, "--to", "edit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "rewound " + run_ + " to edit@1: worktree at " + edit_commit.substr(0, 12) +
                       ", next node look\nkept: 2 stage folders in " + run_ + "/rewound-1, commits up to " +
                       old_head.substr(0, 12) + " in refs/attractor/rewound/" + run_id +
                       "/1\ncontinue with: "
                       "attractor resume " +
                       run_ + "\n");
  const nlohmann::json cp = read_json(run_ + "/checkpoint.json");
  EXPECT_EQ(cp["completed_nodes"], nlohmann::json({"start", "edit"}));
  EXPECT_EQ(cp["next_node"], "look");
  EXPECT_EQ(cp["state"], "running");
  EXPECT_EQ(cp["run_id"], run_id);
  EXPECT_EQ(git(repo_, {"rev-parse", branch}), edit_commit + "\n");
  EXPECT_EQ(git(repo_, {"rev-parse", "refs/attractor/rewound/" + run_id + "/1"}), old_head);
  EXPECT_EQ(slurp(run_ + "/worktree/a.txt"), "hello\nworld\n");
  EXPECT_TRUE(fs::exists(run_ + "/worktree/gone.txt"));
  EXPECT_FALSE(fs::exists(run_ + "/worktree/src"));
  EXPECT_TRUE(fs::exists(run_ + "/edit/status.json"));
  EXPECT_FALSE(fs::exists(run_ + "/look"));
  EXPECT_TRUE(fs::exists(run_ + "/rewound-1/look/status.json"));
  EXPECT_TRUE(fs::exists(run_ + "/rewound-1/more/status.json"));
  EXPECT_EQ(read_json(run_ + "/rewound-1/checkpoint.json")["completed_nodes"].size(), 4u);
  EXPECT_TRUE(fs::exists(run_ + "/rewound-1/checkpoint.history"));
  EXPECT_FALSE(fs::exists(run_ + "/rewind.json"));
  const std::string events = slurp(run_ + "/events.jsonl");
  EXPECT_NE(events.find("\"event\":\"RunRewound\""), std::string::npos);
  EXPECT_NE(events.find("\"to\":\"edit@1\""), std::string::npos);

  ProcessResult resumed = attractor({"resume", run_, "-q"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(comparable(read_json(run_ + "/checkpoint.json")), comparable(final_cp));
  EXPECT_EQ(worktree_files(run_), final_files);
  EXPECT_EQ(subjects(run_), "more: success\nedit: success\n");
  EXPECT_EQ(tree_of(branch), tree_of("refs/attractor/rewound/" + run_id + "/1"));
  EXPECT_EQ(git(repo_, {"rev-parse", branch + "^"}), edit_commit + "\n") << "edit's commit is kept, not redone";

  ProcessResult again = attractor({"rewind", run_, "--to", "start"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(fs::exists(run_ + "/rewound-2/edit/status.json"));
  EXPECT_EQ(git(repo_, {"rev-parse", branch}),
            read_json(run_ + "/manifest.json")["workspace"]["base_commit"].get<std::string>() + "\n");
  EXPECT_EQ(slurp(run_ + "/worktree/a.txt"), "hello\n");
}

TEST_F(RewindForkTest, ARewindToAnEarlierVisitOfALoopKeepsThatVisitsFolders) {
  finished_run(kLoop, run_);
  const nlohmann::json final_cp = read_json(run_ + "/checkpoint.json");
  ProcessResult r = attractor({"rewind", run_, "--to", "bump@2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(run_ + "/worktree/n.txt"), "xx");
  EXPECT_EQ(read_json(run_ + "/checkpoint.json")["visit_counts"],
            nlohmann::json({{"bump", 2}, {"check", 1}, {"start", 1}}));
  EXPECT_TRUE(fs::exists(run_ + "/bump/status.json"));
  EXPECT_TRUE(fs::exists(run_ + "/bump.visits/1/status.json"));
  EXPECT_FALSE(fs::exists(run_ + "/bump.visits/2"));
  EXPECT_TRUE(fs::exists(run_ + "/check/status.json")) << "check's first visit is its folder again";
  EXPECT_TRUE(fs::exists(run_ + "/rewound-1/bump/status.json"));
  EXPECT_TRUE(fs::exists(run_ + "/rewound-1/check.visits/2/status.json"));
  ASSERT_EQ(attractor({"resume", run_, "-q"}).exit_code, 0);
  EXPECT_EQ(slurp(run_ + "/worktree/n.txt"), "xxx");
  EXPECT_EQ(comparable(read_json(run_ + "/checkpoint.json")), comparable(final_cp));
  EXPECT_TRUE(fs::exists(run_ + "/bump.visits/2/status.json"));
}

TEST_F(RewindForkTest, AForkLeavesTheOriginalAloneAndResumesToTheSameEnd) {
  const std::string branch = finished_run(kEdits, run_);
  const nlohmann::json final_cp = read_json(run_ + "/checkpoint.json");
  const std::string final_files = worktree_files(run_);
  const std::string original = tree_snapshot(run_);
  const std::string head = git(repo_, {"rev-parse", branch});
  const std::string fork = dir_.sub("runs/fork");

  ProcessResult r = attractor({"fork", run_, "--at", "look", "--logs-root", fork});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tree_snapshot(run_), original) << "the original run directory is not changed";
  EXPECT_EQ(git(repo_, {"rev-parse", branch}), head);

  const nlohmann::json m = read_json(fork + "/manifest.json");
  const std::string fork_id = m["run_id"];
  EXPECT_NE(fork_id, final_cp["run_id"]);
  EXPECT_EQ(m["forked_from"]["run_id"], final_cp["run_id"]);
  EXPECT_EQ(m["forked_from"]["point"], "look@1");
  EXPECT_EQ(m["workspace"]["branch"], "attractor/" + fork_id);
  EXPECT_EQ(m["workspace"]["worktree"], fork + "/worktree");
  const nlohmann::json cp = read_json(fork + "/checkpoint.json");
  EXPECT_EQ(cp["run_id"], fork_id);
  EXPECT_EQ(cp["context"]["internal.run_id"], fork_id);
  EXPECT_EQ(cp["completed_nodes"], nlohmann::json({"start", "edit", "look"}));
  EXPECT_EQ(git(repo_, {"rev-parse", "attractor/" + fork_id}),
            final_cp["completed_commits"][1].get<std::string>() + "\n");
  EXPECT_EQ(slurp(fork + "/worktree/a.txt"), "hello\nworld\n");
  EXPECT_TRUE(fs::exists(fork + "/look/status.json"));
  EXPECT_FALSE(fs::exists(fork + "/more"));
  EXPECT_FALSE(fs::exists(fork + "/fork.json"));
  EXPECT_NE(r.out.find("continue with: attractor resume " + fork + "\n"), std::string::npos) << r.out;
  EXPECT_NE(slurp(fork + "/events.jsonl").find("\"event\":\"RunForked\""), std::string::npos);

  ProcessResult resumed = attractor({"resume", fork, "-q"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  nlohmann::json expected = comparable(final_cp);
  EXPECT_EQ(comparable(read_json(fork + "/checkpoint.json")), expected);
  EXPECT_EQ(worktree_files(fork), final_files);
  EXPECT_EQ(subjects(fork), "more: success\nedit: success\n");
  EXPECT_EQ(tree_of("attractor/" + fork_id), tree_of(branch));
  EXPECT_EQ(git(repo_, {"rev-parse", branch}), head) << "the original branch is not moved";

  ProcessResult beside = attractor({"fork", run_, "--at", "start"});
  ASSERT_EQ(beside.exit_code, 0) << beside.err;
  EXPECT_NE(beside.out.find("in " + dir_.sub("runs/edits-")), std::string::npos) << beside.out;
}

TEST_F(RewindForkTest, AKillInsideARewindIsFinishedByTheResume) {
  finished_run(kEdits, reference_);
  const nlohmann::json final_cp = read_json(reference_ + "/checkpoint.json");
  const std::string final_files = worktree_files(reference_);
  int number = 0;
  for (const auto& [file, n] : std::vector<std::pair<std::string, int>>{
           {"rewound-1/checkpoint.json", 1}, {"rewind.json", 1}, {"rewound-1/look", 1}, {"checkpoint.json", 1}}) {
    const std::string run = dir_.sub("runs/k" + std::to_string(++number));
    finished_run(kEdits, run);
    ProcessResult killed = killed_after(file, n, {"rewind", run, "--to", "edit"});
    ASSERT_EQ(killed.signal, SIGKILL) << file << ": " << killed.exit_code << killed.out << killed.err;
    ProcessResult resumed = attractor({"resume", run, "-q"});
    ASSERT_EQ(resumed.exit_code, 0) << file << ": " << resumed.err;
    EXPECT_FALSE(fs::exists(run + "/rewind.json")) << file;
    EXPECT_EQ(comparable(read_json(run + "/checkpoint.json")), comparable(final_cp)) << file;
    EXPECT_EQ(worktree_files(run), final_files) << file;
    EXPECT_EQ(subjects(run), "more: success\nedit: success\n") << file;
  }
}

TEST_F(RewindForkTest, AKilledForkLeavesNoRunAndAHalfMadeOneIsFinishedByTheResume) {
  const std::string branch = finished_run(kEdits, run_);
  const std::string fork = dir_.sub("runs/fork");
  ProcessResult killed = killed_after("fork.json", 1, {"fork", run_, "--at", "edit", "--logs-root", fork});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.err;
  EXPECT_FALSE(fs::exists(fork)) << "assembled under a hidden name";
  std::string hidden;
  for (const auto& e : fs::directory_iterator(dir_.sub("runs"))) {
    if (e.path().filename().string().starts_with(".fork.fork-")) hidden = e.path().string();
  }
  ASSERT_TRUE(fs::exists(hidden + "/fork.json")) << hidden;
  const std::string intent = slurp(hidden + "/fork.json");
  EXPECT_EQ(attractor({"runs", "--logs-root", dir_.sub("runs")}).out.find(".fork.fork-"), std::string::npos)
      << "`runs` does not list the hidden folder";

  ASSERT_EQ(attractor({"fork", run_, "--at", "edit", "--logs-root", fork}).exit_code, 0);
  const std::string fork_branch = read_json(fork + "/manifest.json")["workspace"]["branch"];
  // As if killed after the rename, before the worktree: its intent back, its worktree and branch gone.
  git(repo_, {"worktree", "remove", "--force", fork + "/worktree"});
  git(repo_, {"branch", "-q", "-D", fork_branch});
  spit(fork + "/fork.json", intent);
  ProcessResult resumed = attractor({"resume", fork, "-q"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_FALSE(fs::exists(fork + "/fork.json"));
  EXPECT_EQ(subjects(fork), "more: success\nedit: success\n");
  EXPECT_EQ(tree_of(fork_branch), tree_of(branch));
}

TEST_F(RewindForkTest, BadPointsInPlaceRunsAndOccupiedDirectoriesAreRefused) {
  finished_run(kEdits, run_);
  const std::string before = tree_snapshot(run_);
  const std::string valid = "(valid points: start@1, edit@1, look@1, more@1)";
  ProcessResult ghost = attractor({"rewind", run_, "--to", "ghost"});
  EXPECT_EQ(ghost.exit_code, 2);
  EXPECT_EQ(ghost.err, "attractor rewind: the run never completed node 'ghost' " + valid + "\n");
  ProcessResult visit = attractor({"fork", run_, "--at", "edit@2"});
  EXPECT_EQ(visit.exit_code, 2);
  EXPECT_EQ(visit.err, "attractor fork: node 'edit' completed 1 visit, not 2 " + valid + "\n");
  ProcessResult bad = attractor({"rewind", run_, "--to", "edit@x"});
  EXPECT_EQ(bad.err, "attractor rewind: 'edit@x': the visit after @ must be a number from 1 " + valid + "\n");
  ProcessResult missing = attractor({"rewind", run_});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--to is required"), std::string::npos) << missing.err;
  ProcessResult occupied = attractor({"fork", run_, "--at", "edit", "--logs-root", run_});
  EXPECT_EQ(occupied.exit_code, 2);
  EXPECT_EQ(occupied.err, "attractor fork: " + run_ +
                              " already holds a run (its manifest.json); nothing was written: "
                              "give --logs-root a new or empty directory for the fork\n");
  EXPECT_EQ(tree_snapshot(run_), before);
  fs::rename(run_ + "/checkpoint.history", dir_.sub("history"));
  ProcessResult no_history = attractor({"rewind", run_, "--to", "edit"});
  EXPECT_EQ(no_history.exit_code, 2);
  EXPECT_EQ(no_history.err, "attractor rewind: " + run_ +
                                "/checkpoint.history is missing: rewind and fork replay "
                                "it, and only worktree runs started by this version of attractor keep one\n");
  fs::rename(dir_.sub("history"), run_ + "/checkpoint.history");

  const std::string in_place = dir_.sub("runs/in-place");
  std::string text = kEdits;
  text.replace(text.find(", workspace=\"worktree\""), std::string(", workspace=\"worktree\"").size(), "");
  ASSERT_EQ(attractor({"run", graph("p.dot", text), "-q", "--logs-root", in_place}).exit_code, 0);
  ProcessResult plain = attractor({"rewind", in_place, "--to", "edit"});
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_EQ(plain.err, "attractor rewind: " + in_place +
                           " is an in-place run: only a worktree run can go back to a "
                           "stage, since only its files are checkpointed (run with --workspace worktree)\n");
}

TEST_F(RewindForkTest, ARunningRunIsRefusedWithThePointsItHasSoFar) {
  const std::string release = dir_.sub("release");
  const std::string slow = std::string(R"(digraph slow {
  graph [goal="edit", workspace="worktree"]
  start [shape=Mdiamond]
  first [shape=parallelogram, tool_command="printf 'one\n' > a.txt"]
  wait  [shape=parallelogram, tool_command="while [ ! -f )") +
                           release + R"( ]; do sleep 0.05; done"]
  exit  [shape=Msquare]
  start -> first -> wait -> exit
}
)";
  pid_t engine = hardening::spawn_program(
      "/usr/bin/env", {"-C", repo_, ATTRACTOR_BINARY_PATH, "run", graph("slow.dot", slow), "-q", "--logs-root", run_});
  for (int i = 0; i < 2000 && !fs::exists(run_ + "/wait"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(run_ + "/wait"));
  ProcessResult r = attractor({"rewind", run_, "--to", "start"});
  ProcessResult f = attractor({"fork", run_, "--at", "first"});
  spit(release, "");
  int status = 0;
  ::waitpid(engine, &status, 0);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(run_ + " is being run by process " + std::to_string(engine) +
                       ": stop it before rewinding (valid points once stopped: start@1, first@1)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("stop it before forking"), std::string::npos) << f.err;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(read_json(run_ + "/checkpoint.json")["state"], "success");
}

}  // namespace
}  // namespace attractor
