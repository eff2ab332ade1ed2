// Interviewers (§6) and the wait.human handler (§4.6).

#include <unistd.h>

#include <gtest/gtest.h>

#include "handlers/services/interviewer.h"
#include "support/handler_test_support.h"
#include "handlers/wait_human.h"

namespace attractor {
namespace {

Graph gate_graph() {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("shape", "hexagon");
  g.node("gate")->set("label", "Deploy?");
  AttributeBag yes;
  yes.set("label", "[Y] Yes, deploy");
  AttributeBag no;
  no.set("label", "N) No, fix");
  g.add_edge("gate", "deploy", yes);
  g.add_edge("gate", "fix", no);
  g.add_edge("gate", "later");
  return g;
}

Outcome ask(std::shared_ptr<Interviewer> interviewer, Graph& g, testing::StageFixture& f) {
  WaitHumanHandler h(std::move(interviewer));
  Context c;
  StageEnv env = f.env("gate");
  env.timeout_ms = g.node("gate")->timeout_ms();
  return h.execute(*g.node("gate"), c, g, env);
}

TEST(InterviewerTest, AutoApprove) {
  AutoApproveInterviewer a;
  Question q;
  q.options = {{"A", "Alpha"}, {"B", "Beta"}};
  EXPECT_EQ(a.ask(q).value, "A");
  q.type = QuestionType::kYesNo;
  EXPECT_EQ(a.ask(q).kind, AnswerKind::kYes);
  q.type = QuestionType::kConfirmation;
  EXPECT_EQ(a.ask(q).kind, AnswerKind::kYes);
  q.type = QuestionType::kFreeform;
  EXPECT_EQ(a.ask(q).text, "auto-approved");
}

TEST(InterviewerTest, QueueFromJsonArrayAndPerStage) {
  auto q = queue_from_json(nlohmann::json::array({"N", "yes", {{"answer", "x"}, {"text", "free"}}}));
  Question question;
  EXPECT_EQ(q->ask(question).value, "N");
  EXPECT_EQ(q->ask(question).kind, AnswerKind::kYes);
  Answer third = q->ask(question);
  EXPECT_EQ(third.text, "free");
  EXPECT_EQ(q->ask(question).kind, AnswerKind::kUnavailable);

  auto by_stage = queue_from_json({{"gate", {"1", "2"}}, {"other", "skip"}});
  question.stage = "gate";
  EXPECT_EQ(by_stage->ask(question).value, "1");
  EXPECT_EQ(by_stage->ask(question).value, "2");
  EXPECT_EQ(by_stage->ask(question).kind, AnswerKind::kUnavailable);
  question.stage = "other";
  EXPECT_EQ(by_stage->ask(question).kind, AnswerKind::kSkipped);  // an explicit "skip" is an answer
  EXPECT_EQ(by_stage->remaining(), 0u);
  EXPECT_THROW(queue_from_json(3), std::runtime_error);
}

TEST(InterviewerTest, CallbackAndRecording) {
  auto callback = std::make_shared<CallbackInterviewer>([](const Question& q) { return Answer::of(q.stage + "!"); });
  RecordingInterviewer rec(callback);
  Question q;
  q.stage = "s";
  EXPECT_EQ(rec.ask(q).value, "s!");
  ASSERT_EQ(rec.recordings().size(), 1u);
  EXPECT_EQ(rec.recordings()[0].first.stage, "s");
}

TEST(InterviewerTest, MatchOptionByKeyLabelOrNumber) {
  std::vector<Option> opts = {{"Y", "[Y] Yes"}, {"N", "No"}};
  EXPECT_EQ(match_option("y", opts)->key, "Y");
  EXPECT_EQ(match_option("no", opts)->key, "N");
  EXPECT_EQ(match_option("yes", opts)->key, "Y");
  EXPECT_EQ(match_option("2", opts)->key, "N");
  EXPECT_FALSE(match_option("3", opts));
}

TEST(InterviewerTest, ConsoleShowsEachAcceleratorOnce) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::FILE* out = std::tmpfile();
  ConsoleInterviewer console(fds[0], out);
  Question q;
  q.text = "Ship it?";
  q.options = {{"Y", "[Y] Yes"}, {"N", "N) No"}, {"L", "Later"}};
  ASSERT_EQ(::write(fds[1], "y\n", 2), 2);
  EXPECT_EQ(console.ask(q).value, "Y");
  ::close(fds[1]);
  ::close(fds[0]);
  std::rewind(out);
  char buf[512] = {};
  std::fread(buf, 1, sizeof(buf) - 1, out);
  EXPECT_EQ(std::string(buf), "\n[?] Ship it?\n  1. [Y] Yes\n  2. [N] No\n  3. [L] Later\nSelect: ");
  std::fclose(out);
}

TEST(InterviewerTest, ConsoleReadsAnswersAndTimesOut) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::FILE* out = std::tmpfile();
  ConsoleInterviewer console(fds[0], out);
  Question q;
  q.text = "Pick";
  q.options = {{"A", "Alpha"}, {"B", "Beta"}};
  ASSERT_EQ(::write(fds[1], "b\n2\n", 4), 4);
  EXPECT_EQ(console.ask(q).value, "B");
  EXPECT_EQ(console.ask(q).selected_option->label, "Beta");
  q.timeout_seconds = 0.05;
  EXPECT_EQ(console.ask(q).kind, AnswerKind::kTimeout);
  q.type = QuestionType::kYesNo;
  q.timeout_seconds.reset();
  ASSERT_EQ(::write(fds[1], "n\n", 2), 2);
  EXPECT_EQ(console.ask(q).kind, AnswerKind::kNo);
  ::close(fds[1]);
  Answer ended = console.ask(q);
  EXPECT_EQ(ended.kind, AnswerKind::kUnavailable);
  EXPECT_EQ(ended.text, "standard input ended before an answer (no terminal to ask on)");
  ::close(fds[0]);
  std::rewind(out);
  char buf[512] = {};
  std::fread(buf, 1, sizeof(buf) - 1, out);
  EXPECT_NE(std::string(buf).find("1. [A] Alpha"), std::string::npos);
  std::fclose(out);
}

TEST(WaitHumanTest, RoutesOnSelection) {
  testing::StageFixture f;
  Graph g = gate_graph();
  auto queue = std::make_shared<QueueInterviewer>(std::vector<Answer>{Answer::of("N")});
  Outcome o = ask(queue, g, f);
  EXPECT_EQ(o.status, StageStatus::kSuccess);
  EXPECT_EQ(o.suggested_next_ids, std::vector<std::string>{"fix"});
  EXPECT_EQ(o.preferred_label, "N) No, fix");
  EXPECT_EQ(o.context_updates["human.gate.selected"], "N");
  EXPECT_EQ(o.context_updates["human.gate.label"], "N) No, fix");
  auto names = f.events.names();
  EXPECT_EQ(names, (std::vector<std::string>{"InterviewStarted", "InterviewCompleted"}));
}

TEST(WaitHumanTest, ChoicesCarryAcceleratorKeys) {
  testing::StageFixture f;
  Graph g = gate_graph();
  Question seen;
  auto cb = std::make_shared<CallbackInterviewer>([&](const Question& q) {
    seen = q;
    return Answer::of("later");
  });
  Outcome o = ask(cb, g, f);
  ASSERT_EQ(seen.options.size(), 3u);
  EXPECT_EQ(seen.options[0].key, "Y");
  EXPECT_EQ(seen.options[1].key, "N");
  EXPECT_EQ(seen.options[2].key, "L");
  EXPECT_EQ(seen.text, "Deploy?");
  EXPECT_EQ(o.suggested_next_ids, std::vector<std::string>{"later"});
}

TEST(WaitHumanTest, TimeoutUsesDefaultChoiceOrRetries) {
  testing::StageFixture f;
  Graph g = gate_graph();
  g.node("gate")->set("timeout", "2s");
  double seen_timeout = 0;
  auto timeout = std::make_shared<CallbackInterviewer>([&](const Question& q) {
    seen_timeout = q.timeout_seconds.value_or(-1);
    return Answer::timeout();
  });
  Outcome retry = ask(timeout, g, f);
  EXPECT_EQ(retry.status, StageStatus::kRetry);
  EXPECT_EQ(retry.failure_reason, "human gate timeout, no default");
  EXPECT_EQ(seen_timeout, 2.0);
  g.node("gate")->set("human.default_choice", "fix");
  Outcome chosen = ask(timeout, g, f);
  EXPECT_EQ(chosen.suggested_next_ids, std::vector<std::string>{"fix"});
}

TEST(WaitHumanTest, SkippedFailsAndNoEdgesFail) {
  testing::StageFixture f;
  Graph g = gate_graph();
  auto skip = std::make_shared<QueueInterviewer>(std::vector<Answer>{Answer::skipped()});
  EXPECT_EQ(ask(skip, g, f).failure_reason, "human skipped interaction");
  auto empty = std::make_shared<QueueInterviewer>();
  Graph lonely;
  lonely.add_node("gate");
  EXPECT_EQ(ask(empty, lonely, f).failure_reason, "No outgoing edges for human gate");
}

TEST(WaitHumanTest, AnInterviewerThatCannotAskInterruptsTheRunInsteadOfFailingTheGate) {
  testing::StageFixture f;
  Graph g = gate_graph();
  WaitHumanHandler h(std::make_shared<QueueInterviewer>());
  Context c;
  StageEnv env = f.env("gate");
  std::vector<std::string> interrupts;
  env.interrupt_run = [&](const std::string& reason) { interrupts.push_back(reason); };
  Outcome o = h.execute(*g.node("gate"), c, g, env);
  const std::string reason = "human gate `gate` could not ask: no answer is queued for it";
  EXPECT_EQ(interrupts, std::vector<std::string>{reason});
  EXPECT_EQ(o.failure_reason, reason);
  EXPECT_EQ(f.events.names(), std::vector<std::string>{"InterviewStarted"});  // no InterviewCompleted
}

TEST(WaitHumanTest, InterviewCompletedNamesTheOptionTakenAndWhoAnswered) {
  testing::StageFixture f;
  Graph g = gate_graph();
  Outcome o = ask(std::make_shared<AutoApproveInterviewer>(), g, f);
  EXPECT_EQ(o.suggested_next_ids, std::vector<std::string>{"deploy"});
  nlohmann::json completed;
  for (const Event& e : f.events.events()) {
    if (e.name == "InterviewCompleted") completed = e.fields;
  }
  ASSERT_TRUE(completed.is_object());
  EXPECT_EQ(completed["option"], "Yes, deploy");
  EXPECT_EQ(completed["shown"], "[Y] Yes, deploy");
  EXPECT_EQ(completed["answered_by"], "auto-approve");
}

}  // namespace
}  // namespace attractor
