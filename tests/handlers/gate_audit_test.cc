// A human gate leaves its audit trail whoever answers: the question as `prompt.md`, the answer and
// who gave it as `response.md`, both in status.json's `gate` member.

#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "handlers/services/interviewer.h"
#include "handlers/wait_human.h"
#include "support/handler_test_support.h"

namespace attractor {
namespace {

const char kPrompt[] = "# Human gate `gate`\n\nShip it?\n\nType: multiple_choice\nOptions:\n- [Y] Yes\n- [N] No, fix\n";

Graph gate_graph(const std::string& default_choice = "") {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("shape", "hexagon");
  g.node("gate")->set("label", "Ship it?");
  if (!default_choice.empty()) g.node("gate")->set("human.default_choice", default_choice);
  AttributeBag yes, no;
  yes.set("label", "[Y] Yes");
  no.set("label", "[N] No, fix");
  g.add_edge("gate", "ship", yes);
  g.add_edge("gate", "fix", no);
  return g;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Asked {
  Outcome outcome;
  std::string prompt;
  std::string response;
};

Asked ask(Interviewer& interviewer, const Graph& g) {
  testing::StageFixture f;
  WaitHumanHandler h(std::shared_ptr<Interviewer>(&interviewer, [](Interviewer*) {}));
  Context c;
  StageEnv env = f.env("gate");
  Asked a;
  a.outcome = h.execute(*g.node("gate"), c, g, env);
  a.prompt = slurp(env.stage_dir + "/prompt.md");
  a.response = slurp(env.stage_dir + "/response.md");
  return a;
}

TEST(GateAuditTest, AutoApproveIsRecordedAsSuch) {
  AutoApproveInterviewer interviewer;
  Asked a = ask(interviewer, gate_graph());
  EXPECT_EQ(a.prompt, kPrompt);
  EXPECT_EQ(a.response, "Answer: [Y] Yes\nAnswered by: auto-approve\n");
  EXPECT_EQ(a.outcome.stage_info["gate"], (nlohmann::json{{"question", "Ship it?"},
                                                          {"type", "multiple_choice"},
                                                          {"options", {"[Y] Yes", "[N] No, fix"}},
                                                          {"answer", "[Y] Yes"},
                                                          {"answered_by", "auto-approve"}}));
  EXPECT_EQ(outcome_to_json(a.outcome)["gate"]["answered_by"], "auto-approve");  // status.json
}

TEST(GateAuditTest, AnAnswersFileIsRecordedAsFile) {
  std::unique_ptr<QueueInterviewer> queue = queue_from_json(nlohmann::json{{"gate", "N"}});
  queue->set_source("file");
  Asked a = ask(*queue, gate_graph());
  EXPECT_EQ(a.response, "Answer: [N] No, fix\nAnswered by: file\n");
  EXPECT_EQ(a.outcome.stage_info["gate"]["answered_by"], "file");
}

TEST(GateAuditTest, TheConsoleIsRecordedAsConsole) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::FILE* out = std::tmpfile();
  ConsoleInterviewer console(fds[0], out);
  ASSERT_EQ(::write(fds[1], "2\n", 2), 2);
  Asked a = ask(console, gate_graph());
  ::close(fds[1]);
  ::close(fds[0]);
  std::fclose(out);
  EXPECT_EQ(a.prompt, kPrompt);
  EXPECT_EQ(a.response, "Answer: [N] No, fix\nAnswered by: console\n");
}

TEST(GateAuditTest, ATimeoutDefaultIsRecordedAsTimeoutDefault) {
  CallbackInterviewer timing_out([](const Question&) { return Answer::timeout(); });
  Asked a = ask(timing_out, gate_graph("N"));
  EXPECT_EQ(a.prompt, std::string(kPrompt) + "Default on timeout: N\n");
  EXPECT_EQ(a.response, "Answer: [N] No, fix\nAnswered by: timeout-default\n");
  EXPECT_EQ(a.outcome.suggested_next_ids, std::vector<std::string>{"fix"});
}

TEST(GateAuditTest, AWebAnswerKeepsItsSourceAndAnUnmatchedAnswerIsRecordedWithItsResult) {
  CallbackInterviewer web([](const Question&) {
    Answer a = Answer::of("maybe");
    a.source = "web";
    return a;
  });
  Asked a = ask(web, gate_graph());
  EXPECT_EQ(a.outcome.status, StageStatus::kFail);
  EXPECT_EQ(a.response,
            "Answer: maybe\nAnswered by: web\nResult: human gate `gate`: the answer \"maybe\" matches none of its "
            "options (\"[Y] Yes\", \"[N] No, fix\")\n");
}

TEST(GateAuditTest, ATimeoutWithoutDefaultRecordsNoAnswer) {
  CallbackInterviewer timing_out([](const Question&) { return Answer::timeout(); });
  Asked a = ask(timing_out, gate_graph());
  EXPECT_EQ(a.response, "");
  EXPECT_TRUE(a.outcome.stage_info["gate"]["answered_by"].is_null());
}

}  // namespace
}  // namespace attractor
