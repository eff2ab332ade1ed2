// The companion actions called directly: loop_guard, set_variables (+ to_context_blocks) and
// render_context_blocks (flat and tree), each fail-fast rule with its exact message.

#include <gtest/gtest.h>

#include "support/handler_test_support.h"
#include "handlers/loop_guard.h"
#include "handlers/render_context_blocks.h"
#include "handlers/set_variables.h"

namespace attractor {
namespace {

using json = nlohmann::json;
using testing::StageFixture;

/// A graph with nodes `g`, `a`, `b` (and any settings given).
Graph graph_with(std::initializer_list<std::pair<const char*, const char*>> settings = {}) {
  Graph g;
  for (const char* id : {"g", "a", "b"}) g.add_node(id);
  for (const auto& [k, v] : settings) g.data().set(k, v);
  return g;
}

const NodeData& set_node(Graph& g, std::initializer_list<std::pair<const char*, const char*>> attrs) {
  NodeData& n = *g.node("g");
  for (const auto& [k, v] : attrs) n.set(k, v);
  return n;
}

std::string error_of(Handler& h, const NodeData& n, Context& c, const Graph& g, const StageEnv& env) {
  try {
    h.execute(n, c, g, env);
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    return e.what();
  }
  return "(no error)";
}

TEST(LoopGuardTest, AllowsUpToTheSettingThenDeniesAndResets) {
  Graph g = graph_with({{"max_turn_loops", "2"}});
  const NodeData& n = set_node(
      g, {{"max_turn_loops_from_settings", "max_turn_loops"}, {"on_allow", "a"}, {"on_deny", "b"}});
  StageFixture f;
  Context c;
  LoopGuardHandler h;
  std::vector<std::string> routes;
  std::vector<json> counts;
  for (int i = 0; i < 5; ++i) {
    Outcome o = h.execute(n, c, g, f.env("g"));
    ASSERT_EQ(o.status, StageStatus::kSuccess);
    ASSERT_EQ(o.suggested_next_ids.size(), 1u);
    routes.push_back(o.suggested_next_ids[0] + "/" + o.preferred_label);
    c.apply_updates(o.context_updates);
    counts.push_back(*c.get("loop_guard.g"));
  }
  EXPECT_EQ(routes, (std::vector<std::string>{"a/allow", "a/allow", "b/deny", "a/allow", "a/allow"}));
  EXPECT_EQ(counts, (std::vector<json>{1, 2, 0, 1, 2}));
  EXPECT_EQ(*c.get("loop_guard_last"), (json{{"node", "g"}, {"count", 2}, {"max", 2}, {"decision", "allow"}}));
  std::vector<std::string> names = f.events.names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "LoopGuard"), 5);
}

TEST(LoopGuardTest, ZeroLoopsDeniesAtOnce) {
  Graph g = graph_with({{"retries", "0"}});
  const NodeData& n = set_node(g, {{"max_turn_loops_from_settings", "retries"}, {"on_allow", "a"}, {"on_deny", "b"}});
  StageFixture f;
  Context c;
  LoopGuardHandler h;
  EXPECT_EQ(h.execute(n, c, g, f.env("g")).suggested_next_ids, (std::vector<std::string>{"b"}));
}

TEST(LoopGuardTest, FailsFastOnMissingOrBadConfiguration) {
  struct Case {
    std::vector<std::pair<const char*, const char*>> settings, attrs;
    std::string error;
  };
  std::vector<Case> cases = {
      {{{"m", "2"}},
       {{"on_allow", "a"}, {"on_deny", "b"}},
       "loop_guard node 'g': max_turn_loops_from_settings: required (the name of a graph attribute)"},
      {{},
       {{"max_turn_loops_from_settings", "m"}, {"on_allow", "a"}, {"on_deny", "b"}},
       "loop_guard node 'g': max_turn_loops_from_settings: setting 'm' is not a graph attribute"},
      {{{"m", "-1"}},
       {{"max_turn_loops_from_settings", "m"}, {"on_allow", "a"}, {"on_deny", "b"}},
       "loop_guard node 'g': max_turn_loops_from_settings: setting 'm' must be an integer >= 0, got '-1'"},
      {{{"m", "two"}},
       {{"max_turn_loops_from_settings", "m"}, {"on_allow", "a"}, {"on_deny", "b"}},
       "loop_guard node 'g': max_turn_loops_from_settings: setting 'm' must be an integer >= 0, got 'two'"},
      {{{"m", "2"}},
       {{"max_turn_loops_from_settings", "m"}, {"on_deny", "b"}},
       "loop_guard node 'g': on_allow: required (the id of the node to route to)"},
      {{{"m", "2"}},
       {{"max_turn_loops_from_settings", "m"}, {"on_allow", "a"}, {"on_deny", "zz"}},
       "loop_guard node 'g': on_deny: 'zz' is not a node of this graph"},
  };
  for (const Case& k : cases) {
    Graph g = graph_with();
    for (const auto& [key, v] : k.settings) g.data().set(key, v);
    NodeData& n = *g.node("g");
    for (const auto& [key, v] : k.attrs) n.set(key, v);
    StageFixture f;
    Context c;
    LoopGuardHandler h;
    EXPECT_EQ(error_of(h, n, c, g, f.env("g")), k.error);
  }
}

Outcome run_set_variables(const std::string& rules, Context& c, std::string* error = nullptr) {
  Graph g = graph_with();
  NodeData& n = *g.node("g");
  n.set("rules", rules);
  n.set("next", "a");
  StageFixture f;
  SetVariablesHandler h;
  if (error) {
    *error = error_of(h, n, c, g, f.env("g"));
    return {};
  }
  return h.execute(n, c, g, f.env("g"));
}

TEST(SetVariablesTest, AppliesRulesInOrderWithFromValueAndTransform) {
  Context c;
  c.set("last_model_response", "Summary of the earlier context.");
  c.set("context_blocks", json{"old block 1", "old block 2"});
  Outcome o = run_set_variables(R"([
      {"set": "context_blocks", "from": "last_model_response", "transform": "to_context_blocks"},
      {"set": "last_model_response", "value": null},
      {"set": "copy", "from": "last_model_response"},
      {"set": "limits", "value": {"max": 3}},
      {"set": "empty", "value": "  \n", "transform": "to_context_blocks"}])",
                                c);
  EXPECT_EQ(o.status, StageStatus::kSuccess);
  EXPECT_EQ(o.suggested_next_ids, (std::vector<std::string>{"a"}));
  EXPECT_EQ(o.context_updates, (json{{"context_blocks", {"Summary of the earlier context."}},
                                     {"last_model_response", nullptr},
                                     {"copy", nullptr},
                                     {"limits", {{"max", 3}}},
                                     {"empty", json::array()}}));
}

TEST(SetVariablesTest, ToContextBlocksShapes) {
  EXPECT_EQ(to_context_blocks("text"), (json{"text"}));
  EXPECT_EQ(to_context_blocks(""), json::array());
  EXPECT_EQ(to_context_blocks(nullptr), json::array());
  EXPECT_EQ(to_context_blocks(json{"a", "b"}), (json{"a", "b"}));
  EXPECT_THROW(to_context_blocks(json{"a", 1}), std::invalid_argument);
  EXPECT_THROW(to_context_blocks(json{{"a", 1}}), std::invalid_argument);
  EXPECT_THROW(to_context_blocks(3), std::invalid_argument);
}

TEST(SetVariablesTest, FailsFastWithoutWritingAnything) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {" ", "set_variables node 'g': rules: required (a JSON list of {set, from | value, transform})"},
      {"[]", "set_variables node 'g': rules: must be a non-empty JSON list"},
      {"{\"set\": \"x\"}", "set_variables node 'g': rules: must be a non-empty JSON list"},
      {"[{set: x}]", "set_variables node 'g': rules: not valid JSON: [{set: x}]"},
      {R"([{"value": 1}])", "set_variables node 'g': rules[0].set: required (a non-empty context key)"},
      {R"([{"set": "x"}])", "set_variables node 'g': rules[0]: needs exactly one of 'from' or 'value'"},
      {R"([{"set": "x", "from": "a", "value": 1}])",
       "set_variables node 'g': rules[0]: needs exactly one of 'from' or 'value'"},
      {R"([{"set": "x", "value": 1}, {"set": "y", "from": "missing"}])",
       "set_variables node 'g': rules[1].from: context key 'missing' is not set"},
      {R"([{"set": "x", "value": 1, "transform": "upper"}])",
       "set_variables node 'g': rules[0].transform: unknown transform \"upper\" (allowed: to_context_blocks)"},
      {R"([{"set": "x", "value": {"a": 1}, "transform": "to_context_blocks"}])",
       "set_variables node 'g': rules[0].transform: to_context_blocks: expected a string, a list of strings or null, "
       "got {\"a\":1}"},
      {R"([{"set": "x", "value": 1, "when": "always"}])",
       "set_variables node 'g': rules[0].when: unknown field (allowed: set, from, value, transform)"},
      {R"(["x"])", "set_variables node 'g': rules[0]: must be an object, got \"x\""},
  };
  for (const auto& [rules, expected] : cases) {
    Context c;
    std::string error;
    run_set_variables(rules, c, &error);
    EXPECT_EQ(error, expected) << rules;
    EXPECT_FALSE(c.has("x"));
  }
  Graph g = graph_with();
  StageFixture f;
  Context c;
  SetVariablesHandler h;
  EXPECT_EQ(error_of(h, *g.node("g"), c, g, f.env("g")),
            "set_variables node 'g': rules: required (a JSON list of {set, from | value, transform})");
}

json sample_node_texts() {
  // Seeds S1 and S2; S1 -> A (depth 1) -> B (depth 2) -> C (depth 3); X's parent was not fetched.
  return json::array({
      {{"id", "S1"},
       {"text", "class S1 {}"},
       {"is_seed", true},
       {"depth", 0},
       {"parent_id", nullptr},
       {"path", "src/S1.cs"},
       {"language", "dotnet"}},
      {{"node_id", "S2"}, {"text", "SELECT 1;\n\nSELECT 2;"}, {"is_seed", true}, {"depth", 0}, {"parent_id", nullptr}},
      {{"id", "A"}, {"text", "void A();"}, {"is_seed", false}, {"depth", 1}, {"parent_id", "S1"}, {"path", "src/A.cs"}},
      {{"id", "X"}, {"text", "x"}, {"is_seed", false}, {"depth", 1}, {"parent_id", "GONE"}},
      {{"id", "B"}, {"text", "int B;"}, {"is_seed", false}, {"depth", 2}, {"parent_id", "A"}},
      {{"id", "C"}, {"text", "int C;"}, {"is_seed", false}, {"depth", 3}, {"parent_id", "B"}},
  });
}

TEST(RenderContextBlocksTest, FlatListOneBlockPerNodeText) {
  EXPECT_EQ(render_context_blocks(sample_node_texts(), "flat"),
            (json{"--- S1 ---\npath: src/S1.cs\nlanguage: dotnet\nclass S1 {}", "--- S2 ---\nSELECT 1;\n\nSELECT 2;",
                  "--- A ---\npath: src/A.cs\nvoid A();", "--- X ---\nx", "--- B ---\nint B;", "--- C ---\nint C;"}));
}

TEST(RenderContextBlocksTest, TreeOfAtMostThreeLevels) {
  EXPECT_EQ(render_context_blocks(sample_node_texts(), "tree"),
            (json{"- S1 (src/S1.cs)\n  class S1 {}", "  - A (src/A.cs)\n    void A();", "    - B\n      int B;",
                  "    - C\n      int C;", "- S2\n  SELECT 1;\n\n  SELECT 2;", "- X\n  x"}));
}

TEST(RenderContextBlocksTest, HandlerAppendsToContextBlocksAndKeepsNodeTexts) {
  Graph g = graph_with();
  NodeData& n = *g.node("g");
  n.set("layout", "tree");
  n.set("next", "b");
  StageFixture f;
  Context c;
  c.set("context_blocks", json{"earlier"});
  c.set("node_texts", json::array({{{"id", "S"}, {"text", "t"}, {"depth", 0}, {"parent_id", nullptr}}}));
  RenderContextBlocksHandler h;
  Outcome o = h.execute(n, c, g, f.env("g"));
  EXPECT_EQ(o.context_updates, (json{{"context_blocks", {"earlier", "- S\n  t"}}}));
  EXPECT_EQ(o.suggested_next_ids, (std::vector<std::string>{"b"}));

  Context empty;
  n.set("layout", "flat");
  EXPECT_EQ(h.execute(n, empty, g, f.env("g")).context_updates, (json{{"context_blocks", json::array()}}));

  n.set("layout", "graph");
  EXPECT_EQ(error_of(h, n, c, g, f.env("g")),
            "render_context_blocks node 'g': layout: 'graph' is not one of flat | tree");
  n.set("layout", "flat");
  c.set("node_texts", json::array({{{"id", "S"}}}));
  EXPECT_EQ(error_of(h, n, c, g, f.env("g")),
            "render_context_blocks node 'g': node_texts: node_texts[0] (S) has no string text");
  c.set("node_texts", json::array({{{"text", "t"}}}));
  EXPECT_EQ(error_of(h, n, c, g, f.env("g")),
            "render_context_blocks node 'g': node_texts: node_texts[0] has no string id/node_id");
  c.set("node_texts", "text");
  EXPECT_EQ(error_of(h, n, c, g, f.env("g")),
            "render_context_blocks node 'g': node_texts: node_texts must be a list, got \"text\"");
}

}  // namespace
}  // namespace attractor
