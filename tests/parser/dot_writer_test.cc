#include "parser/dot_writer.h"

#include <gtest/gtest.h>

#include "parser/dot_parser.h"

namespace attractor {
namespace {

Graph parse_text(const std::string& text) {
  ParseResult r = parse_dot(std::make_shared<const SourceFile>("w.dot", text));
  EXPECT_TRUE(r.ok());
  return r.ok() ? std::move(*r.graph) : Graph();
}

TEST(DotWriterTest, QuoteDotString) {
  EXPECT_EQ(quote_dot_string(""), "\"\"");
  EXPECT_EQ(quote_dot_string("plain"), "\"plain\"");
  EXPECT_EQ(quote_dot_string("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(quote_dot_string("a\\b"), "\"a\\\\b\"");
  EXPECT_EQ(quote_dot_string("l1\nl2"), "\"l1\\nl2\"");
  EXPECT_EQ(quote_dot_string("tab\tkept"), "\"tab\tkept\"");
}

TEST(DotWriterTest, CanonicalForm) {
  Graph g = parse_text(R"(digraph Flow {
    rankdir=LR
    graph [goal="Do \"it\""]
    node [shape=box]
    start [shape=Mdiamond]
    work [prompt="line1\nline2", human.default_choice=yes, max_retries=2]
    start -> work -> done [label="go", weight=2]
    "node" -> work
  })");
  EXPECT_EQ(write_dot(g),
            "digraph Flow {\n"
            "  graph [goal=\"Do \\\"it\\\"\", rankdir=\"LR\"];\n"
            "  start [shape=\"Mdiamond\"];\n"
            "  work [\"human.default_choice\"=\"yes\", max_retries=\"2\", prompt=\"line1\\nline2\", shape=\"box\"];\n"
            "  done [shape=\"box\"];\n"
            "  \"node\" [shape=\"box\"];\n"
            "  start -> work [label=\"go\", weight=\"2\"];\n"
            "  work -> done [label=\"go\", weight=\"2\"];\n"
            "  \"node\" -> work;\n"
            "}\n");
}

TEST(DotWriterTest, EmptyAndAnonymousGraphs) {
  EXPECT_EQ(write_dot(parse_text("digraph { }")), "digraph {\n}\n");
  EXPECT_EQ(write_dot(parse_text("digraph G { a; b; a -> b }")), "digraph G {\n  a;\n  b;\n  a -> b;\n}\n");
}

TEST(DotWriterTest, OutputParsesBackToTheSameText) {
  const char* text = R"(digraph RoundTrip {
    graph [goal="x\\y \"q\"", label="multi
line"]
    subgraph cluster_a { label="Team A" node [thread_id=t] a -> b [condition="outcome=success && context.x!=1"] }
    c [class="k", prompt="\l kept", timeout=15m]
    b -> c -> a
  })";
  std::string once = write_dot(parse_text(text));
  std::string twice = write_dot(parse_text(once));
  EXPECT_EQ(once, twice);
}

}  // namespace
}  // namespace attractor
