// `attractor run` / `attractor resume` as a user runs them: exit codes, the run directory, SIGINT
// (exit 130, checkpoint intact, resume finishes), and the kill-and-resume test: SIGKILL after
// every checkpoint of a pipeline with tools, a conditional loop and a parallel block, then resume,
// and compare the final checkpoint with an uninterrupted run.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "attractor/run/checkpoint.h"
#include "attractor/run/run_directory.h"
#include "attractor/base/sha256.h"
#include "support/engine_test_support.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::read_checkpoint;
using testing::read_json;
using testing::TempDir;

const std::string kData = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/";

struct Exit {
  int code = -1;  ///< exit status, -1 when killed
  int signal = 0;
};

/// Starts the attractor binary with `args`; `env` entries are added to the environment.
pid_t spawn(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
            const std::string& log = "/dev/null") {
  return hardening::spawn_program(ATTRACTOR_BINARY_PATH, args, env, log);
}

Exit wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  Exit e;
  if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

Exit run(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
         const std::string& log = "/dev/null") {
  return wait_for(spawn(args, env, log));
}

/// Runs `attractor args...` killed by SIGKILL once its k-th checkpoint is durable
/// (support/checkpoint_fault/main.cc).
Exit run_killed_at_checkpoint(int k, const std::vector<std::string>& args, const std::string& mode = "kill") {
  std::vector<std::string> fault_args = {mode, std::to_string(k)};
  fault_args.insert(fault_args.end(), args.begin(), args.end());
  return wait_for(hardening::spawn_program(ATTRACTOR_FAULT_BINARY_PATH, fault_args));
}

/// The paths under `dir`, relative and sorted; a process record's pgid reads `PGID`.
std::vector<std::string> tree_listing(const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    paths.push_back(
        std::regex_replace(fs::relative(entry.path(), dir).string(), std::regex("process-[0-9]+"), "process-PGID"));
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

/// The checkpoint without fields that legitimately differ between runs. A run killed between
/// stages pays for no call twice, so its token usage must match too.
nlohmann::json comparable(const std::string& run_dir) {
  nlohmann::json j = read_json(run_dir + "/checkpoint.json");
  for (const char* k : {"timestamp", "timestamp_ms", "run_id"}) j.erase(k);
  j["context"].erase("internal.run_id");
  return j;
}

TEST(CliRunTest, SuccessFailAndValidationExitCodes) {
  TempDir dir;
  std::string log = dir.sub("log.txt");
  EXPECT_EQ(
      run({"run", kData + "human.dot", "--simulate", "--logs-root", dir.sub("ok"), "--auto-approve"}, {}, log).code, 0);
  std::string out = read_text_file(log);
  EXPECT_NE(out.find("run directory: " + dir.sub("ok")), std::string::npos);
  EXPECT_EQ(read_json(dir.sub("ok/checkpoint.json"))["current_node"], "done");

  EXPECT_EQ(run({"run", kData + "failing.dot", "--simulate", "--logs-root", dir.sub("fail"), "-q"}, {}, log).code, 1);
  EXPECT_NE(read_text_file(log).find(
                "result: fail: stage `broken` failed after 1 attempt and no failure route leads on: tool exited "
                "with code 3"),
            std::string::npos);

  std::string bad = dir.sub("bad.dot");
  write_text_file(bad, "digraph bad { a -> b }");
  EXPECT_EQ(run({"run", bad, "--simulate", "--logs-root", dir.sub("bad")}).code, 2);
  EXPECT_FALSE(fs::exists(dir.sub("bad")));
  EXPECT_EQ(run({"run", kData + "human.dot", "--no-such-flag"}).code, 2);
  EXPECT_EQ(run({"run", kData + "human.dot", "--set", "novalue", "--logs-root", dir.sub("x")}).code, 2);
}

TEST(CliRunTest, AnswersSetAndJsonEvents) {
  TempDir dir;
  std::string answers = dir.sub("answers.json");
  write_text_file(answers, R"({"review": "R"})");
  std::string log = dir.sub("out.jsonl");
  Exit e = run({"run", kData + "human.dot", "--simulate", "--logs-root", dir.sub("r"), "--answers", answers, "--set",
                "n=3", "--set", "who=me", "--set-json", "m=3", "--json-events", "-q"},
               {}, log);
  EXPECT_EQ(e.code, 0);
  nlohmann::json cp = read_json(dir.sub("r/checkpoint.json"));
  EXPECT_EQ(cp["completed_nodes"], (nlohmann::json{"start", "review", "rework"}));
  EXPECT_EQ(cp["context"]["n"], "3");
  EXPECT_EQ(cp["context"]["m"], 3);
  EXPECT_EQ(cp["context"]["who"], "me");
  std::string out = read_text_file(log);
  EXPECT_NE(out.find("{\"event\":\"PipelineStarted\""), std::string::npos);
  EXPECT_NE(out.find("\"event\":\"InterviewStarted\""), std::string::npos);
  nlohmann::json manifest = read_json(dir.sub("r/manifest.json"));
  EXPECT_EQ(manifest["name"], "human");
  EXPECT_EQ(manifest["graph_sha256"], sha256_hex(read_text_file(kData + "human.dot")));
}

TEST(CliRunTest, ALoopKeepsEachVisitsFilesBesideTheStageFolder) {
  TempDir dir;
  std::string run_dir = dir.sub("r");
  ASSERT_EQ(run({"run", kData + "kill_resume.dot", "--simulate", "--logs-root", run_dir, "-q"}).code, 0);
  // A visit with a single attempt that starts no program keeps its files in the stage folder alone.
  EXPECT_EQ(tree_listing(run_dir + "/work"), (std::vector<std::string>{"prompt.md", "response.md", "status.json"}));
  EXPECT_EQ(tree_listing(run_dir + "/work.visits"),
            (std::vector<std::string>{"1", "1/prompt.md", "1/response.md", "1/status.json", "2", "2/prompt.md",
                                      "2/response.md", "2/status.json"}));
  EXPECT_EQ(read_json(run_dir + "/work.visits/1/status.json")["outcome"], "fail");
  EXPECT_EQ(read_json(run_dir + "/work.visits/2/status.json")["outcome"], "fail");
  EXPECT_EQ(read_json(run_dir + "/work/status.json")["outcome"], "success");
  EXPECT_EQ(tree_listing(run_dir + "/prep.visits"),
            (std::vector<std::string>{"1", "1/attempt-1", "1/attempt-1/context.json", "1/attempt-1/process-PGID.json",
                                      "1/attempt-1/stderr.txt", "1/attempt-1/stdout.txt", "1/status.json", "2",
                                      "2/attempt-1", "2/attempt-1/context.json", "2/attempt-1/process-PGID.json",
                                      "2/attempt-1/stderr.txt", "2/attempt-1/stdout.txt", "2/status.json"}));
  EXPECT_FALSE(fs::exists(run_dir + "/gate.visits"));
}

TEST(CliRunTest, KillAtEveryCheckpointThenResumeMatchesUninterruptedRun) {
  TempDir dir;
  std::string graph = kData + "kill_resume.dot";
  std::string reference = dir.sub("reference");
  ASSERT_EQ(run({"run", graph, "--simulate", "--logs-root", reference, "-q"}).code, 0);
  nlohmann::json expected = comparable(reference);
  EXPECT_EQ(expected["completed_nodes"], (nlohmann::json{"start", "prep", "work", "prep", "work", "prep", "work",
                                                         "gate", "fan", "left", "right", "join", "finish"}));
  EXPECT_EQ(expected["completed_statuses"],
            (nlohmann::json{"success", "success", "fail", "success", "fail", "success", "success", "success", "success",
                            "success", "success", "success", "success"}));
  std::string events = read_text_file(reference + "/events.jsonl");
  int checkpoints = 0;
  for (std::size_t p = events.find("CheckpointSaved"); p != std::string::npos;
       p = events.find("CheckpointSaved", p + 1)) {
    ++checkpoints;
  }
  ASSERT_EQ(checkpoints, 13);  // initial + one per main-loop node (11) + final
  for (int k = 1; k < checkpoints; ++k) {
    std::string run_dir = dir.sub("killed" + std::to_string(k));
    Exit killed = run_killed_at_checkpoint(k, {"run", graph, "--simulate", "--logs-root", run_dir, "-q"});
    ASSERT_EQ(killed.signal, SIGKILL) << "k=" << k;
    ASSERT_EQ(run({"resume", run_dir, "-q"}).code, 0) << "k=" << k;
    EXPECT_EQ(comparable(run_dir), expected) << "k=" << k;
    for (const char* stage : {"work", "right", "work.visits/1", "work.visits/2"}) {
      // The preamble lists every earlier visit with its own status, resumed or not, and the
      // earlier visits' files are kept once each.
      EXPECT_EQ(read_text_file(run_dir + "/" + stage + "/prompt.md"),
                read_text_file(reference + "/" + stage + "/prompt.md"))
          << "k=" << k << " " << stage;
    }
    EXPECT_EQ(tree_listing(run_dir + "/work"), tree_listing(reference + "/work")) << "k=" << k;
    EXPECT_EQ(tree_listing(run_dir + "/work.visits"), tree_listing(reference + "/work.visits")) << "k=" << k;
    EXPECT_FALSE(fs::exists(run_dir + "/checkpoint.json.tmp"));
  }
}

TEST(CliRunTest, ARunDirectoryWithEarlierVisitsNestedInTheStageFolderResumesIntoTheNewLayout) {
  TempDir dir;
  std::string graph = kData + "kill_resume.dot";
  std::string reference = dir.sub("reference");
  ASSERT_EQ(run({"run", graph, "--simulate", "--logs-root", reference, "-q"}).code, 0);
  std::string run_dir = dir.sub("nested");
  ASSERT_EQ(run_killed_at_checkpoint(7, {"run", graph, "--simulate", "--logs-root", run_dir, "-q"}).signal, SIGKILL);
  for (const char* node : {"prep", "work"}) {  // what builds before `{node}.visits/` wrote
    const std::string stage = run_dir + "/" + node;
    ASSERT_TRUE(fs::is_directory(stage + ".visits")) << node;
    fs::rename(stage + ".visits", stage + "/visits");
  }
  ASSERT_EQ(run({"resume", run_dir, "-q"}).code, 0);
  EXPECT_EQ(comparable(run_dir), comparable(reference));
  for (const char* node : {"prep", "work"}) {
    const std::string stage = std::string("/") + node;
    EXPECT_EQ(tree_listing(run_dir + stage), tree_listing(reference + stage)) << node;
    EXPECT_EQ(tree_listing(run_dir + stage + ".visits"), tree_listing(reference + stage + ".visits")) << node;
  }
}

TEST(CliRunTest, KillsAroundAndInsideEveryCompactionThenResumeMatchesUninterruptedRun) {
  TempDir dir;
  std::string graph = kData + "kill_resume.dot";
  std::string reference = dir.sub("reference");
  ASSERT_EQ(run({"run", graph, "--simulate", "--logs-root", reference, "-q"}).code, 0);
  nlohmann::json expected = comparable(reference);
  // Every second save is a snapshot, so kills land right after snapshots, right after records,
  // and (kill-compaction) between a new snapshot and the removal of the journal it folded.
  for (const std::string mode : {"kill", "kill-compaction"}) {
    int killed_runs = 0;
    for (int k = 1;; ++k) {
      std::string run_dir = dir.sub(mode + std::to_string(k));
      Exit killed = run_killed_at_checkpoint(k,
                                             {"run", graph, "--simulate", "--logs-root", run_dir, "-q",
                                              "--snapshot-every", "2", "--checkpoint-rewrite-below", "0"},
                                             mode);
      if (killed.signal != SIGKILL) {
        ASSERT_EQ(killed.code, 0) << mode << " k=" << k;
        break;
      }
      ++killed_runs;
      if (mode == "kill-compaction") {
        ASSERT_TRUE(fs::exists(run_dir + "/checkpoint.journal")) << k;  // killed before its removal
      }
      std::string log = dir.sub(mode + std::to_string(k) + ".log");
      ASSERT_EQ(run({"resume", run_dir}, {}, log).code, 0) << mode << " k=" << k << read_text_file(log);
      EXPECT_NE(read_text_file(log).find("--snapshot-every 2"), std::string::npos) << read_text_file(log);
      EXPECT_EQ(comparable(run_dir), expected) << mode << " k=" << k;
      EXPECT_FALSE(fs::exists(run_dir + "/checkpoint.journal")) << mode << " k=" << k;  // compacted at the end
    }
    EXPECT_GE(killed_runs, mode == "kill" ? 12 : 5) << mode;
  }
}

TEST(CliRunTest, SigintExitsWith130AndResumeFinishes) {
  TempDir dir;
  std::string run_dir = dir.sub("run");
  std::string log = dir.sub("run.err");
  pid_t pid = spawn({"run", kData + "interruptible.dot", "--simulate", "--logs-root", run_dir}, {}, log);
  bool waiting = false;
  for (int i = 0; i < 400 && !waiting; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    waiting = fs::exists(run_dir + "/wait_for_go/attempt-1/context.json");
  }
  ASSERT_TRUE(waiting);
  ::kill(pid, SIGINT);
  Exit e = wait_for(pid);
  EXPECT_EQ(e.code, 130);
  Checkpoint cp = load_checkpoint(run_dir);
  EXPECT_EQ(cp.current_node, "first");
  EXPECT_EQ(cp.next_node, "wait_for_go");
  EXPECT_EQ(cp.state, "running");
  std::string err = read_text_file(log);
  EXPECT_EQ(err.find("interrupted"), err.rfind("interrupted")) << err;  // said once
  EXPECT_NE(err.find("\ninterrupted; the checkpoint is intact: attractor resume " + run_dir + "\n"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("tokens:"), std::string::npos) << err;  // no LLM call was made

  write_text_file(run_dir + "/go", "");
  std::string resume_log = dir.sub("resume.err");
  EXPECT_EQ(run({"resume", run_dir, "-q"}, {}, resume_log).code, 0);
  EXPECT_EQ(read_text_file(resume_log), "");  // a quiet run that succeeds says nothing
  cp = load_checkpoint(run_dir);
  EXPECT_EQ(cp.completed_nodes, (std::vector<std::string>{"start", "first", "wait_for_go"}));
  // The interrupted attempt keeps attempt-1/; the resumed one ran in attempt-2/.
  EXPECT_EQ(read_text_file(run_dir + "/wait_for_go/attempt-2/stdout.txt"), "went\n");
}

TEST(CliRunTest, TheTokenSummaryCountsCallsInGoodEnglishAndOnlyWhenThereWereAny) {
  TempDir dir;
  std::string graph = dir.sub("one.dot");
  write_text_file(graph,
                  "digraph one { start [shape=Mdiamond] ask [prompt=\"Say hi\"] done [shape=Msquare] "
                  "start -> ask -> done }");
  std::string log = dir.sub("one.err");
  ASSERT_EQ(run({"run", graph, "--simulate", "--logs-root", dir.sub("one")}, {}, log).code, 0);
  std::string err = read_text_file(log);
  EXPECT_NE(err.find(" output (1 request in 1 stage)\nresult: success\n"), std::string::npos) << err;
  std::string tools = dir.sub("tools.dot");
  write_text_file(tools,
                  "digraph tools { start [shape=Mdiamond] t [shape=parallelogram, tool_command=\"true\"] "
                  "done [shape=Msquare] start -> t -> done }");
  std::string tools_log = dir.sub("tools.err");
  ASSERT_EQ(run({"run", tools, "--logs-root", dir.sub("tools")}, {}, tools_log).code, 0);
  err = read_text_file(tools_log);
  EXPECT_EQ(err.find("tokens:"), std::string::npos) << err;
  EXPECT_NE(err.find("pipeline completed in "), std::string::npos) << err;
}

TEST(CliRunTest, ResumeHelpListsOnlyWhatResumeTakes) {
  TempDir dir;
  std::string resume_help = dir.sub("resume.txt"), run_help = dir.sub("run.txt");
  ASSERT_EQ(run({"resume", "--help"}, {}, resume_help).code, 0);
  ASSERT_EQ(run({"run", "--help"}, {}, run_help).code, 0);
  for (const char* option : {"--set ", "--set-json", "--context", "--logs-root"}) {
    EXPECT_EQ(read_text_file(resume_help).find(option), std::string::npos) << option;
    EXPECT_NE(read_text_file(run_help).find(option), std::string::npos) << option;
  }
  std::string refused = dir.sub("refused.txt");
  EXPECT_EQ(run({"resume", dir.path(), "--set", "a=b"}, {}, refused).code, 2);
  EXPECT_EQ(read_text_file(refused),
            "attractor resume: --set, --set-json and --context seed a new run's context; a resumed run continues with "
            "the context saved in its checkpoint\n");
}

TEST(CliRunTest, ResumeRefusesAChangedGraphUnlessForced) {
  TempDir dir;
  std::string graph = dir.sub("g.dot");
  write_text_file(graph, read_text_file(kData + "human.dot"));
  std::string run_dir = dir.sub("run");
  ASSERT_EQ(run({"run", graph, "--simulate", "--logs-root", run_dir, "--auto-approve", "-q"}).code, 0);
  write_text_file(graph, read_text_file(kData + "human.dot") + "\n// edited\n");
  std::string log = dir.sub("log");
  EXPECT_EQ(run({"resume", run_dir, "-q"}, {}, log).code, 2);
  EXPECT_NE(read_text_file(log).find("changed since the run started"), std::string::npos);
  EXPECT_EQ(run({"resume", run_dir, "--force", "-q"}).code, 0);
  EXPECT_EQ(run({"resume", dir.sub("nothing-here")}).code, 2);
}

TEST(CliRunTest, SetStoresTextAndSetJsonStoresTypedValues) {
  TempDir dir;
  std::string graph = dir.sub("g.dot");
  write_text_file(graph, R"(digraph g {
    start [shape=Mdiamond]; done [shape=Msquare]
    match [shape=parallelogram, tool_command="true"]; other [shape=parallelogram, tool_command="true"]
    start -> match [condition="context.version=1.10"]
    start -> other
    match -> done; other -> done
  })");
  std::string log = dir.sub("log.txt");
  Exit e = run({"run",
                graph,
                "--logs-root",
                dir.sub("r"),
                "-q",
                "--set",
                "version=1.10",
                "--set",
                "zero=007",
                "--set",
                "flag=true",
                "--set",
                "nothing=null",
                "--set",
                "eq=a=b",
                "--set-json",
                "n=1e3",
                "--set-json",
                "obj={\"a\":[1,true]}",
                "--set-json",
                "s=\"007\""},
               {}, log);
  ASSERT_EQ(e.code, 0) << read_text_file(log);
  nlohmann::json context = read_json(dir.sub("r/checkpoint.json"))["context"];
  EXPECT_EQ(context["version"], "1.10");
  EXPECT_EQ(context["zero"], "007");
  EXPECT_EQ(context["flag"], "true");
  EXPECT_EQ(context["nothing"], "null");
  EXPECT_EQ(context["eq"], "a=b");
  EXPECT_EQ(context["n"], 1000.0);
  EXPECT_EQ(context["obj"], nlohmann::json::parse(R"({"a":[1,true]})"));
  EXPECT_EQ(context["s"], "007");
  EXPECT_EQ(read_json(dir.sub("r/checkpoint.json"))["completed_nodes"], (nlohmann::json{"start", "match"}));

  EXPECT_EQ(run({"run", graph, "--logs-root", dir.sub("bad"), "--set-json", "n=1.2.3"}, {}, log).code, 2);
  EXPECT_EQ(read_text_file(log),
            "attractor: --set-json n: '1.2.3' is not JSON (quote strings: --set-json 'name=\"text\"', or use --set)\n");
  EXPECT_EQ(run({"run", graph, "--logs-root", dir.sub("bad2"), "--set-json", "=1"}, {}, log).code, 2);
  EXPECT_EQ(read_text_file(log), "attractor: --set-json expects KEY=JSON, got '=1'\n");
}

TEST(CliRunTest, AFailedToolShowsTheEndOfItsStderrUnderItsLine) {
  TempDir dir;
  std::string log = dir.sub("log.txt");
  EXPECT_EQ(run({"run", kData + "failing.dot", "--logs-root", dir.sub("r")}, {}, log).code, 1);
  std::string out = read_text_file(log);
  EXPECT_NE(out.find("  ✗ broken                   fail             "), std::string::npos) << out;
  EXPECT_NE(out.find("  tool exited with code 3\n    │ nope\n"), std::string::npos) << out;
}

TEST(CliRunTest, AnswersAndResponsesKeysThatNameNoNodeAreWarnedAbout) {
  TempDir dir;
  write_text_file(dir.sub("answers.json"), R"({"reveiw": "R", "review": "S"})");
  write_text_file(dir.sub("responses.json"), R"({"shipp": "done"})");
  std::string log = dir.sub("log.txt");
  Exit e = run({"run", kData + "human.dot", "--simulate", "--logs-root", dir.sub("r"), "-q", "--answers",
                dir.sub("answers.json"), "--responses", dir.sub("responses.json")},
               {}, log);
  EXPECT_EQ(e.code, 0);
  std::string out = read_text_file(log);
  EXPECT_NE(out.find("attractor: warning: --answers " + dir.sub("answers.json") +
                     ": key 'reveiw' names no node of the pipeline\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("attractor: warning: --responses " + dir.sub("responses.json") +
                     ": key 'shipp' names no node of the pipeline\n"),
            std::string::npos)
      << out;
}

TEST(CliRunTest, AResumedRunPassesOverTheAnswersItsGatesConsumed) {
  TempDir dir;
  write_text_file(dir.sub("answers.json"), R"(["Y", "H"])");
  const std::string run_dir = dir.sub("run");
  // Checkpoints: the initial one, after start, after first: the process dies there.
  Exit killed = run_killed_at_checkpoint(
      3, {"run", kData + "two_gates.dot", "--logs-root", run_dir, "-q", "--answers", dir.sub("answers.json")});
  ASSERT_EQ(killed.signal, SIGKILL);
  ASSERT_EQ(read_checkpoint(run_dir)["completed_nodes"], (nlohmann::json{"start", "first"}));
  std::string log = dir.sub("log.txt");
  ASSERT_EQ(run({"resume", run_dir, "-q"}, {}, log).code, 0) << read_text_file(log);
  EXPECT_EQ(read_json(run_dir + "/checkpoint.json")["completed_nodes"],
            (nlohmann::json{"start", "first", "second", "hold"}));
}

TEST(CliRunTest, StrictRefusesWarningsAndSetKeysCountAsKnown) {
  TempDir dir;
  std::string graph = dir.sub("g.dot");
  write_text_file(graph, R"(digraph g {
    start [shape=Mdiamond]; exit [shape=Msquare]
    work [shape=parallelogram, tool_command="true"]
    start -> work
    work -> exit [condition="outcom=success"]
    work -> exit
  })");
  std::string log = dir.sub("log.txt");
  EXPECT_EQ(run({"run", graph, "--strict", "--logs-root", dir.sub("strict")}, {}, log).code, 2);
  EXPECT_NE(read_text_file(log).find("(a warning, an error in strict mode)"), std::string::npos) << read_text_file(log);
  EXPECT_FALSE(fs::exists(dir.sub("strict")));
  EXPECT_EQ(run({"run", graph, "--strict", "--set", "outcom=yes", "--logs-root", dir.sub("known")}, {}, log).code, 0)
      << read_text_file(log);
}

}  // namespace
}  // namespace attractor
