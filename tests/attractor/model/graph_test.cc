#include "attractor/model/graph.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

TEST(GraphTest, NodeDefaultsFollowAppendixA) {
  Graph g;
  Vertex v = g.add_node("plan");
  const NodeData& n = g.node(v);
  EXPECT_EQ(n.label(), "plan");
  EXPECT_EQ(n.shape(), "box");
  EXPECT_EQ(n.type(), "");
  EXPECT_EQ(n.reasoning_effort(), "high");
  EXPECT_FALSE(n.max_retries().has_value());
  EXPECT_FALSE(n.goal_gate());
  EXPECT_FALSE(n.auto_status());
  EXPECT_FALSE(n.allow_partial());
  EXPECT_FALSE(n.timeout_ms().has_value());
}

TEST(GraphTest, TypedAccessorsParseQuotedText) {
  Graph g;
  NodeData& n = g.node(g.add_node("x"));
  n.set("timeout", "900s");
  n.set("max_retries", "3", ValueKind::kInteger);
  n.set("goal_gate", "true", ValueKind::kBoolean);
  n.set("class", " code , critical,,");
  EXPECT_EQ(n.timeout_ms(), 900'000);
  EXPECT_EQ(n.max_retries(), 3);
  EXPECT_TRUE(n.goal_gate());
  EXPECT_EQ(n.classes(), (std::vector<std::string>{"code", "critical"}));
}

TEST(GraphTest, EdgesKeepDeclarationOrder) {
  Graph g;
  g.add_edge("a", "c");
  g.add_edge("a", "b");
  g.add_edge("b", "c");
  auto out = g.out_edges(*g.find("a"));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(g.to_id(out[0]), "c");
  EXPECT_EQ(g.to_id(out[1]), "b");
  EXPECT_EQ(g.from_id(out[1]), "a");
  EXPECT_EQ(g.in_edges(*g.find("c")).size(), 2u);
  EXPECT_EQ(g.edge_count(), 3u);
  EXPECT_EQ(g.node_count(), 3u);
  EXPECT_EQ(g.add_node("a"), *g.find("a"));
}

TEST(GraphTest, GraphDefaultMaxRetriesHonoursLegacyAlias) {
  Graph g;
  EXPECT_EQ(g.data().default_max_retries(), 0);
  g.data().set("default_max_retry", "4");
  EXPECT_EQ(g.data().default_max_retries(), 4);
  g.data().set("default_max_retries", "2");
  EXPECT_EQ(g.data().default_max_retries(), 2);
}

TEST(ValueTest, ParsesTypedValues) {
  EXPECT_EQ(parse_integer("-42"), -42);
  EXPECT_FALSE(parse_integer("4x"));
  EXPECT_FALSE(parse_integer("99999999999999999999"));
  EXPECT_EQ(parse_boolean("false"), false);
  EXPECT_FALSE(parse_boolean("True"));
  EXPECT_DOUBLE_EQ(*parse_float("-3.14"), -3.14);
  EXPECT_DOUBLE_EQ(*parse_float(".5"), 0.5);
  EXPECT_FALSE(parse_float("1."));
  EXPECT_EQ(parse_duration_ms("250ms"), 250);
  EXPECT_EQ(parse_duration_ms("15m"), 900'000);
  EXPECT_EQ(parse_duration_ms("2h"), 7'200'000);
  EXPECT_EQ(parse_duration_ms("1d"), 86'400'000);
  EXPECT_FALSE(parse_duration_ms("10"));
  EXPECT_FALSE(parse_duration_ms("10w"));
  EXPECT_FALSE(parse_duration_ms("-5s"));
  EXPECT_TRUE(is_identifier("_a1"));
  EXPECT_FALSE(is_identifier("1a"));
  EXPECT_FALSE(is_identifier("a-b"));
}

TEST(ValueTest, LocateInValueMapsEscapes) {
  //                        0123456789012345678
  SourceFile file("f.dot", "x [c=\"a\\\"b=c\"]\n");
  Value v(ValueKind::kString, "a\"b=c", file.locate(5));
  // Unescaped offset 3 is 'b'... offset 2 is 'b' (a, ", b).
  SourceLocation loc = locate_in_value(file, v.location, 2);
  EXPECT_EQ(loc.line, 1);
  EXPECT_EQ(loc.column, 10);
  EXPECT_EQ(file.text()[loc.offset], 'b');
}

TEST(SourceFileTest, LocatesLinesAndColumns) {
  SourceFile file("f.dot", "ab\ncd\r\n\nef");
  EXPECT_EQ(file.locate(0).line, 1);
  EXPECT_EQ(file.locate(4).line, 2);
  EXPECT_EQ(file.locate(4).column, 2);
  EXPECT_EQ(file.line_text(2), "cd");
  EXPECT_EQ(file.line_text(3), "");
  EXPECT_EQ(file.line_text(4), "ef");
  EXPECT_EQ(file.line_text(5), "");
  EXPECT_EQ(file.locate(100).line, 4);
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

TEST(ValueTest, LocateInValueFollowsTheLexersEscapeRules) {
  // Raw: "x\l=\<newline>y"  -> unescaped: x \ l = y  (\l kept as two chars, \<newline> dropped)
  SourceFile file("f.dot", "a [c=\"x\\l=\\\ny\"]\n");
  Value v(ValueKind::kString, "x\\l=y", file.locate(5));
  EXPECT_EQ(file.text()[locate_in_value(file, v.location, 0).offset], 'x');
  EXPECT_EQ(file.text()[locate_in_value(file, v.location, 1).offset], '\\');
  EXPECT_EQ(file.text()[locate_in_value(file, v.location, 3).offset], '=');
  SourceLocation y = locate_in_value(file, v.location, 4);
  EXPECT_EQ(file.text()[y.offset], 'y');
  EXPECT_EQ(y.line, 2);
  EXPECT_EQ(y.column, 1);
}

}  // namespace
}  // namespace attractor
