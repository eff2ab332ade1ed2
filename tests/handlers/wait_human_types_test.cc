// wait.human question types (human.question_type): yes_no, confirmation, freeform.

#include <gtest/gtest.h>

#include "handlers/services/interviewer.h"
#include "support/handler_test_support.h"
#include "handlers/wait_human.h"

namespace attractor {
namespace {

/// gate -> approve ("Approve"), gate -> rework ("[R] Reject"), gate -> later (no label).
Graph typed_gate(const std::string& type) {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("shape", "hexagon");
  g.node("gate")->set("label", "Ship it?");
  if (!type.empty()) g.node("gate")->set("human.question_type", type);
  AttributeBag approve;
  approve.set("label", "Approve");
  AttributeBag reject;
  reject.set("label", "[R] Reject");
  g.add_edge("gate", "approve", approve);
  g.add_edge("gate", "rework", reject);
  g.add_edge("gate", "later");
  return g;
}

struct Asked {
  Outcome outcome;
  Question question;
};

Asked ask(Graph& g, Answer answer) {
  testing::StageFixture f;
  auto recording = std::make_shared<RecordingInterviewer>(
      std::make_shared<CallbackInterviewer>([answer](const Question&) { return answer; }));
  WaitHumanHandler h(recording);
  Context c;
  Asked asked{h.execute(*g.node("gate"), c, g, f.env("gate")), {}};
  if (!recording->recordings().empty()) asked.question = recording->recordings().front().first;
  return asked;
}

TEST(WaitHumanTypes, ParsesTheFourTypes) {
  EXPECT_EQ(parse_human_question_type(""), QuestionType::kMultipleChoice);
  EXPECT_EQ(parse_human_question_type("multiple_choice"), QuestionType::kMultipleChoice);
  EXPECT_EQ(parse_human_question_type("yes_no"), QuestionType::kYesNo);
  EXPECT_EQ(parse_human_question_type("confirmation"), QuestionType::kConfirmation);
  EXPECT_EQ(parse_human_question_type("freeform"), QuestionType::kFreeform);
  EXPECT_EQ(parse_human_question_type("YES_NO"), std::nullopt);
}

TEST(WaitHumanTypes, UnknownTypeFailsNamingTheAllowedValues) {
  Graph g = typed_gate("choice");
  Asked a = ask(g, Answer::yes());
  EXPECT_EQ(a.outcome.status, StageStatus::kFail);
  EXPECT_EQ(a.outcome.category, ErrorCategory::kTerminal);
  EXPECT_EQ(a.outcome.failure_reason,
            "node gate: human.question_type 'choice' is not one of multiple_choice, yes_no, confirmation, freeform");
}

TEST(WaitHumanTypes, YesNoAsksYesNoWithoutOptionsAndYesFollowsTheApproveEdge) {
  Graph g = typed_gate("yes_no");
  Asked a = ask(g, Answer::yes());
  EXPECT_EQ(a.question.type, QuestionType::kYesNo);
  EXPECT_TRUE(a.question.options.empty());
  EXPECT_EQ(a.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(a.outcome.suggested_next_ids, std::vector<std::string>{"approve"});
  EXPECT_EQ(a.outcome.context_updates["human.gate.label"], "Approve");
}

TEST(WaitHumanTypes, YesNoNoFollowsTheRejectEdge) {
  Graph g = typed_gate("yes_no");
  Asked a = ask(g, Answer::no());
  EXPECT_EQ(a.outcome.suggested_next_ids, std::vector<std::string>{"rework"});
  EXPECT_EQ(a.outcome.context_updates["human.gate.selected"], "R");
}

TEST(WaitHumanTypes, YesNoWithoutLabelsUsesFirstAndSecondEdge) {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("human.question_type", "yes_no");
  g.add_edge("gate", "a");
  g.add_edge("gate", "b");
  EXPECT_EQ(ask(g, Answer::yes()).outcome.suggested_next_ids, std::vector<std::string>{"a"});
  EXPECT_EQ(ask(g, Answer::no()).outcome.suggested_next_ids, std::vector<std::string>{"b"});
}

TEST(WaitHumanTypes, YesNoNoWithOnlyOneEdgeFails) {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("human.question_type", "yes_no");
  g.add_edge("gate", "a");
  Asked a = ask(g, Answer::no());
  EXPECT_EQ(a.outcome.status, StageStatus::kFail);
  EXPECT_EQ(a.outcome.failure_reason, "human answered no and gate gate has no edge for it");
}

TEST(WaitHumanTypes, ConfirmationNoWithoutANoEdgeFailsForFailureRouting) {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("label", "Really delete?");
  g.node("gate")->set("human.question_type", "confirmation");
  g.add_edge("gate", "delete");
  g.add_edge("gate", "audit");
  Asked no = ask(g, Answer::no());
  EXPECT_EQ(no.question.type, QuestionType::kConfirmation);
  EXPECT_EQ(no.outcome.status, StageStatus::kFail);
  EXPECT_EQ(no.outcome.failure_reason, "human did not confirm: Really delete?");
  Asked yes = ask(g, Answer::yes());
  EXPECT_EQ(yes.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(yes.outcome.suggested_next_ids, std::vector<std::string>{"delete"});
}

TEST(WaitHumanTypes, ConfirmationNoFollowsAnEdgeLabelledCancel) {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("human.question_type", "confirmation");
  g.add_edge("gate", "go");
  AttributeBag cancel;
  cancel.set("label", "[C] Cancel");
  g.add_edge("gate", "abort", cancel);
  EXPECT_EQ(ask(g, Answer::no()).outcome.suggested_next_ids, std::vector<std::string>{"abort"});
}

TEST(WaitHumanTypes, FreeformStoresTheTextAndRoutesWhenItNamesAChoice) {
  Graph g = typed_gate("freeform");
  Answer text = Answer::of("please add tests first");
  text.text = "please add tests first";
  Asked free = ask(g, text);
  EXPECT_EQ(free.question.type, QuestionType::kFreeform);
  EXPECT_EQ(free.outcome.status, StageStatus::kSuccess);
  EXPECT_TRUE(free.outcome.suggested_next_ids.empty());
  EXPECT_EQ(free.outcome.context_updates["human.gate.text"], "please add tests first");
  EXPECT_FALSE(free.outcome.context_updates.contains("human.gate.selected"));

  Answer named = Answer::of("rework");
  named.text = "rework";
  EXPECT_EQ(ask(g, named).outcome.suggested_next_ids, std::vector<std::string>{"rework"});
}

TEST(WaitHumanTypes, TimeoutUsesDefaultChoiceForEveryType) {
  Graph yes_no = typed_gate("yes_no");
  yes_no.node("gate")->set("human.default_choice", "no");
  EXPECT_EQ(ask(yes_no, Answer::timeout()).outcome.suggested_next_ids, std::vector<std::string>{"rework"});

  Graph free = typed_gate("freeform");
  free.node("gate")->set("human.default_choice", "no comment");
  Asked a = ask(free, Answer::timeout());
  EXPECT_EQ(a.outcome.context_updates["human.gate.text"], "no comment");

  Graph confirm = typed_gate("confirmation");
  confirm.node("gate")->set("human.default_choice", "maybe");
  EXPECT_EQ(ask(confirm, Answer::timeout()).outcome.failure_reason,
            "human.default_choice 'maybe' is neither yes, no nor a choice");
}

TEST(WaitHumanTypes, AutoApproveAnswersYesToConfirmation) {
  Graph g = typed_gate("confirmation");
  testing::StageFixture f;
  WaitHumanHandler h(std::make_shared<AutoApproveInterviewer>());
  Context c;
  Outcome o = h.execute(*g.node("gate"), c, g, f.env("gate"));
  EXPECT_EQ(o.suggested_next_ids, std::vector<std::string>{"approve"});
}

}  // namespace
}  // namespace attractor
