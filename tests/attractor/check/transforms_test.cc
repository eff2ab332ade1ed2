#include "attractor/check/transforms.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "support/registration_scope.h"

namespace attractor {
namespace {

void run_builtins(Graph& g) {
  std::vector<Diagnostic> diagnostics;
  apply_transforms(g, diagnostics);
  EXPECT_TRUE(diagnostics.empty());
}

TEST(GoalExpansion, ReplacesEveryOccurrenceInPrompts) {
  Graph g;
  g.data().set("goal", "ship v2");
  g.node(g.add_node("plan")).set("prompt", "Plan: $goal. Then check $goal again.");
  g.node(g.add_node("label_only")).set("label", "About $goal");
  g.node(g.add_node("plain")).set("prompt", "No variables here");
  std::vector<Diagnostic> diagnostics;
  GoalExpansionTransform().apply(g, diagnostics);
  EXPECT_EQ(g.node("plan")->prompt(), "Plan: ship v2. Then check ship v2 again.");
  EXPECT_EQ(g.node("label_only")->label(), "About $goal");
  EXPECT_FALSE(g.node("label_only")->has("prompt"));
  EXPECT_EQ(g.node("plain")->prompt(), "No variables here");
  EXPECT_TRUE(diagnostics.empty());
}

TEST(GoalExpansion, GoalContainingTheVariableDoesNotLoop) {
  Graph g;
  g.data().set("goal", "$goal$goal");
  g.node(g.add_node("a")).set("prompt", "[$goal]");
  std::vector<Diagnostic> diagnostics;
  GoalExpansionTransform().apply(g, diagnostics);
  EXPECT_EQ(g.node("a")->prompt(), "[$goal$goal]");
}

TEST(GoalExpansion, MissingGoalExpandsToEmpty) {
  Graph g;
  g.node(g.add_node("a")).set("prompt", "Goal: $goal!");
  run_builtins(g);
  EXPECT_EQ(g.node("a")->prompt(), "Goal: !");
}

Graph spec_example() {
  Graph g;
  g.data().set("model_stylesheet",
               "\n            * { llm_model: claude-sonnet-4-5; llm_provider: anthropic; }\n"
               "            .code { llm_model: claude-opus-4-6; llm_provider: anthropic; }\n"
               "            #critical_review { llm_model: gpt-5.2; llm_provider: openai; reasoning_effort: high; }\n");
  g.node(g.add_node("start")).set("shape", "Mdiamond");
  g.node(g.add_node("exit")).set("shape", "Msquare");
  g.node(g.add_node("plan")).set("class", "planning");
  g.node(g.add_node("implement")).set("class", "code");
  g.node(g.add_node("critical_review")).set("class", "code");
  return g;
}

TEST(StylesheetTransform, SpecExample) {
  Graph g = spec_example();
  run_builtins(g);
  EXPECT_EQ(g.node("plan")->llm_model(), "claude-sonnet-4-5");
  EXPECT_EQ(g.node("plan")->llm_provider(), "anthropic");
  EXPECT_FALSE(g.node("plan")->has("reasoning_effort"));
  EXPECT_EQ(g.node("implement")->llm_model(), "claude-opus-4-6");
  EXPECT_EQ(g.node("implement")->llm_provider(), "anthropic");
  EXPECT_EQ(g.node("critical_review")->llm_model(), "gpt-5.2");
  EXPECT_EQ(g.node("critical_review")->llm_provider(), "openai");
  EXPECT_EQ(g.node("critical_review")->get("reasoning_effort"), "high");
  EXPECT_EQ(g.node("start")->llm_model(), "claude-sonnet-4-5");
}

TEST(StylesheetTransform, AppliedValuesHaveNoLocation) {
  Graph g = spec_example();
  run_builtins(g);
  auto v = g.node("plan")->find("llm_model");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind(), ValueKind::kString);
  EXPECT_FALSE(v->location().known());
}

Graph one_node(const std::string& stylesheet, const std::string& shape, const std::string& cls) {
  Graph g;
  g.data().set("model_stylesheet", stylesheet);
  NodeData& n = g.node(g.add_node("review"));
  if (!shape.empty()) n.set("shape", shape);
  if (!cls.empty()) n.set("class", cls);
  return g;
}

std::string model_after(const std::string& stylesheet, const std::string& shape = "", const std::string& cls = "") {
  Graph g = one_node(stylesheet, shape, cls);
  run_builtins(g);
  return g.node("review")->llm_model();
}

TEST(StylesheetTransform, SpecificityOrder) {
  EXPECT_EQ(model_after("* { llm_model: any }"), "any");
  EXPECT_EQ(model_after("box { llm_model: shape } * { llm_model: any }"), "shape");
  EXPECT_EQ(model_after("* { llm_model: any } box { llm_model: shape }"), "shape");
  EXPECT_EQ(model_after(".fast { llm_model: class } box { llm_model: shape }", "box", "fast"), "class");
  EXPECT_EQ(model_after("#review { llm_model: id } .fast { llm_model: class }", "", "fast"), "id");
  EXPECT_EQ(model_after(".fast { llm_model: class } #review { llm_model: id }", "", "fast"), "id");
}

TEST(StylesheetTransform, ShapeSelectorUsesShapeDefault) {
  EXPECT_EQ(model_after("box { llm_model: b }"), "b");
  EXPECT_EQ(model_after("box { llm_model: b }", "hexagon"), "");
  EXPECT_EQ(model_after("hexagon { llm_model: h } box { llm_model: b }", "hexagon"), "h");
}

TEST(StylesheetTransform, LaterRulesWinTies) {
  EXPECT_EQ(model_after("* { llm_model: first } * { llm_model: second }"), "second");
  EXPECT_EQ(model_after(".a { llm_model: a } .b { llm_model: b }", "", "b, a"), "b");
  EXPECT_EQ(model_after(".b { llm_model: b } .a { llm_model: a }", "", "b,a"), "a");
  EXPECT_EQ(model_after("* { llm_model: x; llm_model: y }"), "y");
}

TEST(StylesheetTransform, ClassesMustMatchExactly) {
  EXPECT_EQ(model_after(".code { llm_model: c }", "", "codes"), "");
  EXPECT_EQ(model_after(".code { llm_model: c }", "", "planning, code"), "c");
}

TEST(StylesheetTransform, ExplicitAttributesAlwaysWin) {
  Graph g = one_node("#review { llm_model: styled; reasoning_effort: low; llm_provider: p }", "", "");
  g.node("review")->set("llm_model", "explicit");
  g.node("review")->set("reasoning_effort", "");
  run_builtins(g);
  EXPECT_EQ(g.node("review")->llm_model(), "explicit");
  EXPECT_EQ(g.node("review")->get("reasoning_effort"), "");
  EXPECT_EQ(g.node("review")->llm_provider(), "p");
}

TEST(StylesheetTransform, PropertiesResolveIndependently) {
  Graph g = one_node("* { llm_model: base; reasoning_effort: medium } #review { reasoning_effort: low }", "", "");
  run_builtins(g);
  EXPECT_EQ(g.node("review")->llm_model(), "base");
  EXPECT_EQ(g.node("review")->get("reasoning_effort"), "low");
  EXPECT_FALSE(g.node("review")->has("llm_provider"));
}

TEST(StylesheetTransform, InvalidStylesheetChangesNothing) {
  Graph g = one_node("* { llm_model: a } box { llm_modle: b }", "", "");
  run_builtins(g);
  EXPECT_FALSE(g.node("review")->has("llm_model"));
}

/// Appends its name to the graph attribute `log` (and records the prompt it saw).
class LoggingTransform : public Transform {
 public:
  explicit LoggingTransform(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void apply(Graph& graph, std::vector<Diagnostic>& diagnostics) const override {
    std::string log = graph.data().get("log");
    graph.data().set("log", log.empty() ? name_ : log + "," + name_);
    const NodeData* a = graph.node("a");
    Diagnostic d;
    d.rule = name_;
    d.severity = Severity::kInfo;
    d.message = a ? a->prompt() + "|" + a->llm_model() : "";
    diagnostics.push_back(d);
  }

 private:
  std::string name_;
};

TEST(Transforms, CustomTransformsRunAfterBuiltinsInRegistrationOrder) {
  Graph g;
  g.data().set("goal", "G");
  g.data().set("model_stylesheet", "* { llm_model: m }");
  g.node(g.add_node("a")).set("prompt", "do $goal");
  std::vector<Diagnostic> diagnostics;
  {
    testing::ScopedTransforms registered(
        {std::make_shared<LoggingTransform>("first"), std::make_shared<LoggingTransform>("second")});
    apply_transforms(g, diagnostics, {std::make_shared<LoggingTransform>("extra")});
  }
  EXPECT_EQ(g.data().get("log"), "first,second,extra");
  ASSERT_EQ(diagnostics.size(), 3u);
  EXPECT_EQ(diagnostics[0].rule, "first");
  EXPECT_EQ(diagnostics[0].message, "do G|m");

  Graph h;
  std::vector<Diagnostic> none;
  apply_transforms(h, none);
  EXPECT_EQ(h.data().get("log"), "");
  EXPECT_TRUE(none.empty());
}

TEST(Transforms, BuiltinNames) {
  EXPECT_EQ(GoalExpansionTransform().name(), "goal_expansion");
  EXPECT_EQ(StylesheetTransform().name(), "stylesheet");
}

}  // namespace
}  // namespace attractor
