// A human gate never guesses: an answer that designates none of the gate's options fails the stage
// (terminal) with a message naming the gate, the answer and the options, for every question type
// and every answer form (a word, an empty string, a yes/no no option means, a queued file answer).

#include <gtest/gtest.h>

#include "handlers/services/interviewer.h"
#include "handlers/wait_human.h"
#include "support/handler_test_support.h"

namespace attractor {
namespace {

/// gate -> ship ("[S] Ship"), gate -> fix ("[F] Fix"): no label means yes or no.
Graph ship_or_fix(const std::string& type) {
  Graph g;
  g.add_node("gate");
  g.node("gate")->set("shape", "hexagon");
  if (!type.empty()) g.node("gate")->set("human.question_type", type);
  AttributeBag ship;
  ship.set("label", "[S] Ship");
  AttributeBag fix;
  fix.set("label", "[F] Fix");
  g.add_edge("gate", "ship", ship);
  g.add_edge("gate", "fix", fix);
  return g;
}

Outcome answer_gate(Graph& g, std::shared_ptr<Interviewer> interviewer) {
  testing::StageFixture f;
  WaitHumanHandler h(std::move(interviewer));
  Context c;
  return h.execute(*g.node("gate"), c, g, f.env("gate"));
}

Outcome answer_gate(Graph& g, Answer answer) {
  return answer_gate(g, std::make_shared<CallbackInterviewer>([answer](const Question&) { return answer; }));
}

void expect_refused(const Outcome& o, const std::string& given) {
  EXPECT_EQ(o.status, StageStatus::kFail) << given;
  EXPECT_EQ(o.category, ErrorCategory::kTerminal) << given;
  EXPECT_EQ(o.failure_reason,
            "human gate `gate`: the answer \"" + given + "\" matches none of its options (\"[S] Ship\", \"[F] Fix\")");
  EXPECT_TRUE(o.suggested_next_ids.empty()) << given;
  EXPECT_TRUE(o.context_updates.find("human.gate.selected") == o.context_updates.end()) << given;
}

TEST(WaitHumanUnmatchedTest, MultipleChoiceRefusesEveryAnswerThatNamesNoOption) {
  Graph g = ship_or_fix("");
  for (const char* given : {"maybe", "reject", "", "3", "approve"})
    expect_refused(answer_gate(g, Answer::of(given)), given);
  expect_refused(answer_gate(g, Answer::yes()), "yes");
  expect_refused(answer_gate(g, Answer::no()), "no");
}

TEST(WaitHumanUnmatchedTest, MultipleChoiceStillAcceptsKeyLabelNumberAndTarget) {
  Graph g = ship_or_fix("");
  for (const char* given : {"F", "f", "[F] Fix", "2", "fix"}) {
    Outcome o = answer_gate(g, Answer::of(given));
    EXPECT_EQ(o.status, StageStatus::kSuccess) << given;
    EXPECT_EQ(o.suggested_next_ids, std::vector<std::string>{"fix"}) << given;
  }
}

TEST(WaitHumanUnmatchedTest, YesNoAndConfirmationRefuseAnswersThatAreNeitherYesNorNo) {
  for (const char* type : {"yes_no", "confirmation"}) {
    Graph g = ship_or_fix(type);
    for (const char* given : {"maybe", "", "later"}) expect_refused(answer_gate(g, Answer::of(given)), given);
    EXPECT_EQ(answer_gate(g, Answer::of("y")).suggested_next_ids, std::vector<std::string>{"ship"}) << type;
  }
}

TEST(WaitHumanUnmatchedTest, AnswersFromAFileAreRefusedTheSameWay) {
  Graph g = ship_or_fix("");
  for (const char* text : {R"(["maybe"])", R"({"gate": "reject"})", R"({"gate": ""})", R"([{"answer": "perhaps"}])"}) {
    std::shared_ptr<QueueInterviewer> queue = queue_from_json(nlohmann::json::parse(text));
    Outcome o = answer_gate(g, queue);
    EXPECT_EQ(o.status, StageStatus::kFail) << text;
    EXPECT_NE(o.failure_reason.find("matches none of its options"), std::string::npos) << text;
  }
}

TEST(WaitHumanUnmatchedTest, QueueSkipPassesOverAStagesNextAnswer) {
  std::shared_ptr<QueueInterviewer> queue = queue_from_json(nlohmann::json::parse(R"({"gate": ["F", "S"]})"));
  EXPECT_EQ(queue->stages(), std::vector<std::string>{"gate"});
  queue->skip("gate");
  Graph g = ship_or_fix("");
  EXPECT_EQ(answer_gate(g, queue).suggested_next_ids, std::vector<std::string>{"ship"});
}

}  // namespace
}  // namespace attractor
