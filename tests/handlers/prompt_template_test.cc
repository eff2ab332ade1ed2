// `${key}` prompt variables (handlers/prompt_template.h) and their use by the codergen handler.

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "handlers/codergen.h"
#include "support/handler_test_support.h"
#include "handlers/prompt_template.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {
namespace {

using json = nlohmann::json;

TEST(PromptTemplateTest, ExpandsGoalAndContextKeysInOnePass) {
  Context c;
  c.set("user_question_en", "Where is the order total computed?");
  c.set("context_blocks", json{"block one", "block two\nline 2"});
  c.set("n", 3);
  c.set("flag", true);
  c.set("none", nullptr);
  c.set("obj", json{{"a", 1}});
  c.set("mixed", json{"a", 1});
  c.set("tricky", "${n} and $goal");
  c.set("graph.goal", "the goal");
  std::vector<std::string> unknown;
  std::string out = expand_prompt_template(
      "Q: ${user_question_en}\nE:\n${context_blocks}\nn=${n} f=${flag} none=[${none}] goal=$goal/${graph.goal}\n"
      "obj=${obj} mixed=${mixed} tricky=${tricky} lit=$${n} shell=${HOME:-x} miss=${missing} ${missing} $ end $",
      "GOAL", c, &unknown);
  EXPECT_EQ(out,
            "Q: Where is the order total computed?\nE:\nblock one\n\nblock two\nline 2\nn=3 f=true none=[] "
            "goal=GOAL/the goal\nobj={\n  \"a\": 1\n} mixed=[\n  \"a\",\n  1\n] tricky=${n} and $goal lit=${n} "
            "shell=${HOME:-x} miss=${missing} ${missing} $ end $");
  EXPECT_EQ(unknown, (std::vector<std::string>{"missing"}));
  EXPECT_EQ(expand_prompt_template("$goal$goal ${unclosed", "g", c), "gg ${unclosed");
}

TEST(PromptTemplateTest, CodergenPromptSeesContextAndWarnsAboutUnknownKeys) {
  Graph g;
  g.data().set("goal", "explain");
  Vertex v = g.add_node("answer");
  g.node(v).set("prompt", "Goal: $goal\nQuestion: ${user_question_en}\nEvidence:\n${context_blocks}\n${nope}");
  testing::StageFixture f;
  Context c;
  c.set("user_question_en", "Why?");
  c.set("context_blocks", json{"--- NODE ---\nid: a", "--- NODE ---\nid: b"});
  CodergenHandler h(std::make_shared<SimulationBackend>());
  StageEnv env = f.env("answer");
  testing::open_stage_conversation(env, g.node(v), c, g);
  Outcome o = h.execute(g.node(v), c, g, env);
  EXPECT_EQ(o.status, StageStatus::kSuccess);
  std::string prompt = read_text_file(f.root() + "/answer/prompt.md");
  std::string task = "Goal: explain\nQuestion: Why?\nEvidence:\n--- NODE ---\nid: a\n\n--- NODE ---\nid: b\n${nope}";
  ASSERT_GE(prompt.size(), task.size());
  EXPECT_EQ(prompt.substr(prompt.size() - task.size()), task);  // after any fidelity preamble
  bool warned = false;
  for (const Event& e : f.events.events()) {
    if (e.name != "PromptVariableUnknown") continue;
    warned = true;
    EXPECT_EQ(e.fields, (json{{"name", "answer"}, {"keys", {"nope"}}}));
  }
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace attractor
