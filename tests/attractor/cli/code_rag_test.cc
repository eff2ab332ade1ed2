// graphs/code_rag.dot end to end through the CLI, offline: index tests/data/csharp_sql_repo into a
// temporary directory, run the pipeline with the simulation backend and `--index`, check what the
// answer stage received; then SIGKILL the run after every checkpoint, resume, and compare with the
// uninterrupted run (the inbox message to manage_budget included).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_test_support.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

using json = nlohmann::json;
using testing::run_attractor;

const std::string kRoot = ATTRACTOR_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

json checkpoint_of(const std::string& run_dir) { return json::parse(slurp(run_dir + "/checkpoint.json")); }

/// The checkpoint without what legitimately differs between runs.
json comparable(const std::string& run_dir) {
  json j = checkpoint_of(run_dir);
  for (const char* k : {"timestamp", "timestamp_ms", "run_id", "usage"}) j.erase(k);
  j["context"].erase("internal.run_id");
  return j;
}

class CodeRagTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir();
    index_ = dir_ + "/index";
    std::string repo = kRoot + "/tests/data/csharp_sql_repo";
    auto r = run_attractor(
        {"index", repo, "--index", index_, "--repository", "acme", "--branch", "main", "--acl", repo + "/acl.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> run_args(const std::string& run_dir) const {
    return {"run",       kRoot + "/graphs/code_rag.dot",          "--simulate",  "--index", index_,
            "--context", kRoot + "/graphs/code_rag.context.json", "--logs-root", run_dir,   "-q"};
  }
  testing::CommandResult run(const std::string& run_dir) { return run_attractor(run_args(run_dir)); }
  /// The same run, SIGKILLed once its k-th checkpoint is durable (support/checkpoint_fault/main.cc).
  testing::CommandResult run_killed_at_checkpoint(const std::string& run_dir, int k) {
    std::vector<std::string> argv = {ATTRACTOR_FAULT_BINARY_PATH, "kill", std::to_string(k)};
    for (std::string& arg : run_args(run_dir)) argv.push_back(std::move(arg));
    return testing::run_command(argv);
  }

  std::string dir_;
  std::string index_;
};

TEST_F(CodeRagTest, AnswersFromRetrievedEvidenceOffline) {
  std::string run_dir = dir_ + "/run";
  auto r = run(run_dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json cp = checkpoint_of(run_dir);
  EXPECT_EQ(cp["completed_nodes"], (json{"start", "router", "ask_compact_sql", "retrieve", "expand_graph",
                                         "fetch_texts", "manage_budget", "answer"}));
  const json& ctx = cp["context"];
  EXPECT_EQ(
      ctx["retrieval_seed_nodes"],
      (json{"sql:dbo.CancelMeeting", "cs:Acme.Meetings.Data.MeetingRepository.Cancel(int,string)",
            "cs:Acme.Meetings.Data.IMeetingRepository.Cancel(int,string)", "cs:Acme.Meetings.Domain.MeetingStatus"}));
  EXPECT_EQ(
      ctx["graph_expanded_nodes"],
      (json{"sql:dbo.CancelMeeting", "cs:Acme.Meetings.Data.MeetingRepository.Cancel(int,string)",
            "cs:Acme.Meetings.Data.IMeetingRepository.Cancel(int,string)", "cs:Acme.Meetings.Domain.MeetingStatus",
            "sql:dbo.Meetings", "cs:Acme.Meetings.Data.IConnectionFactory.Open()"}));
  EXPECT_EQ(ctx["node_texts"], json::array());  // consumed by manage_budget (on_ok)
  ASSERT_TRUE(ctx["context_blocks"].is_array());
  EXPECT_EQ(ctx["context_blocks"].size(), 7u);  // divider + 6 nodes
  EXPECT_EQ(ctx["context_blocks"][0], "<<<New content");
  EXPECT_EQ(cp["inbox"], json::array());
  EXPECT_EQ(ctx["inbox_last_consumed"], json::array());  // reset on entry to `answer`

  // The demand message reached manage_budget, which compacted the SQL nodes.
  std::string events = slurp(run_dir + "/events.jsonl");
  EXPECT_NE(events.find(R"("event":"InboxDelivered")"), std::string::npos);
  EXPECT_NE(events.find(R"("node_id":"manage_budget","topics":["compact_sql"])"), std::string::npos) << events;

  std::string prompt = slurp(run_dir + "/answer/prompt.md");
  for (const std::string& part : {
           std::string("### Question:\nHow is a meeting cancelled, and which stored procedure does the code call to do "
                       "it?\n\n### Evidence:\n<<<New content\n\n--- NODE ---\nid: sql:dbo.CancelMeeting\n"),
           std::string("--- NODE ---\nid: cs:Acme.Meetings.Data.MeetingRepository.Cancel(int,string)\n"),
           std::string("connection.Execute(\"dbo.CancelMeeting\""),
           std::string("--- NODE ---\nid: sql:dbo.CancelMeeting\npath: db/procedures/CancelMeeting.sql\nlanguage: "
                       "sql\ncompact: true\ntext:\nCREATE OR ALTER PROCEDURE dbo.CancelMeeting"),
           std::string("--- NODE ---\nid: cs:Acme.Meetings.Domain.MeetingStatus\n"),
       }) {
    EXPECT_NE(prompt.find(part), std::string::npos) << part << "\n---- prompt ----\n" << prompt;
  }
  EXPECT_EQ(prompt.find("${"), std::string::npos) << prompt;
  // The preamble carries no retrieval bookkeeping and no copy of what the prompt already holds.
  std::string preamble = prompt.substr(0, prompt.find("Answer the developer's question"));
  for (const char* key : {"graph_edges", "graph_debug", "graph_nodes", "retrieval_hits", "node_texts", "context_blocks",
                          "user_question_en", "inbox_last_consumed"}) {
    EXPECT_EQ(preamble.find(key), std::string::npos) << key << "\n" << preamble;
  }
  EXPECT_NE(preamble.find("  - repository: \"acme\"\n"), std::string::npos) << preamble;
}

TEST_F(CodeRagTest, KillAtEveryCheckpointThenResumeMatchesTheUninterruptedRun) {
  std::string reference = dir_ + "/reference";
  ASSERT_EQ(run(reference).exit_code, 0);
  json expected = comparable(reference);
  const int checkpoints = 10;  // initial + 8 nodes + final
  for (int k = 1; k < checkpoints; ++k) {
    std::string run_dir = dir_ + "/killed" + std::to_string(k);
    auto killed = run_killed_at_checkpoint(run_dir, k);
    ASSERT_EQ(killed.exit_code, 128 + 9) << "k=" << k;
    if (k == 4) {  // initial, start, router, ask_compact_sql: the message waits in the checkpoint
      EXPECT_EQ(testing::read_checkpoint(run_dir)["inbox"],
                (json::array({{{"target_step_id", "manage_budget"},
                               {"topic", "compact_sql"},
                               {"payload", {{"reason", "procedure bodies are long; keep signatures and object names"}}},
                               {"from_step_id", "ask_compact_sql"}}})));
    }
    auto resumed = run_attractor({"resume", run_dir, "--index", index_, "-q"});
    ASSERT_EQ(resumed.exit_code, 0) << "k=" << k << resumed.err;
    EXPECT_EQ(comparable(run_dir), expected) << "k=" << k;
  }
}

}  // namespace
}  // namespace attractor
