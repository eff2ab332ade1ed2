#include "parser/dot_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "parser/dot_builder.h"

namespace attractor {
namespace {

ParseResult parse(const std::string& text, const ParseLimits& limits = {}) {
  return parse_dot(std::make_shared<const SourceFile>("test.dot", text), limits);
}

/// Parses text that must succeed without diagnostics.
Graph parse_ok(const std::string& text) {
  ParseResult r = parse(text);
  EXPECT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : format_diagnostic(r.diagnostics[0], r.source.get()));
  EXPECT_TRUE(r.diagnostics.empty()) << format_diagnostic(r.diagnostics[0], r.source.get());
  return r.ok() ? std::move(*r.graph) : Graph();
}

/// The first diagnostic's first line, as `format_diagnostic` prints it.
std::string first_error(const std::string& text, const ParseLimits& limits = {}) {
  ParseResult r = parse(text, limits);
  if (r.diagnostics.empty()) return "<no diagnostic>";
  std::string formatted = format_diagnostic(r.diagnostics[0], r.source.get());
  return formatted.substr(0, formatted.find('\n'));
}

Value attr(const Graph& g, const std::string& node, const std::string& key) {
  const Value missing(ValueKind::kString, "<missing>");
  const NodeData* n = g.node(node);
  if (n == nullptr) return missing;
  auto v = n->find(key);
  return v ? v->to_value() : missing;
}

TEST(DotParserTest, ValueKindsBySyntax) {
  Graph g = parse_ok(R"(digraph G {
    a [i=42, n=-1, z=0, f=0.5, nf=-3.14, lf=.25, t=true, fl=false, d1=250ms, d2=900s, d3=15m, d4=2h, d5=1d,
       b=LR, q="900s", path=a.b:c-d]
  })");
  EXPECT_EQ(attr(g, "a", "i").kind, ValueKind::kInteger);
  EXPECT_EQ(attr(g, "a", "i").text, "42");
  EXPECT_EQ(attr(g, "a", "n").kind, ValueKind::kInteger);
  EXPECT_EQ(attr(g, "a", "n").text, "-1");
  EXPECT_EQ(attr(g, "a", "z").kind, ValueKind::kInteger);
  EXPECT_EQ(attr(g, "a", "f").kind, ValueKind::kFloat);
  EXPECT_EQ(attr(g, "a", "nf").kind, ValueKind::kFloat);
  EXPECT_EQ(attr(g, "a", "nf").text, "-3.14");
  EXPECT_EQ(attr(g, "a", "lf").kind, ValueKind::kFloat);
  EXPECT_EQ(attr(g, "a", "t").kind, ValueKind::kBoolean);
  EXPECT_EQ(attr(g, "a", "fl").kind, ValueKind::kBoolean);
  EXPECT_EQ(attr(g, "a", "fl").text, "false");
  for (const char* key : {"d1", "d2", "d3", "d4", "d5"}) EXPECT_EQ(attr(g, "a", key).kind, ValueKind::kDuration) << key;
  EXPECT_EQ(g.node("a")->get_duration_ms("d1"), 250);
  EXPECT_EQ(g.node("a")->get_duration_ms("d2"), 900'000);
  EXPECT_EQ(g.node("a")->get_duration_ms("d3"), 900'000);
  EXPECT_EQ(g.node("a")->get_duration_ms("d4"), 7'200'000);
  EXPECT_EQ(g.node("a")->get_duration_ms("d5"), 86'400'000);
  EXPECT_EQ(attr(g, "a", "b").kind, ValueKind::kBare);
  EXPECT_EQ(attr(g, "a", "b").text, "LR");
  EXPECT_EQ(attr(g, "a", "q").kind, ValueKind::kString);
  EXPECT_EQ(g.node("a")->get_duration_ms("q"), 900'000);
  EXPECT_EQ(attr(g, "a", "path").kind, ValueKind::kBare);
  EXPECT_EQ(attr(g, "a", "path").text, "a.b:c-d");
}

TEST(DotParserTest, StringEscapes) {
  Graph g = parse_ok(R"(digraph G {
    a [s1="say \"hi\"", s2="line1\nline2", s3="tab\there", s4="back\\slash", s5="left\l", s6="cont\
inued", s7="" , s8="multi
line", s9="a" + "b" + "c", s10="/* not a comment */ // nor this"]
  })");
  EXPECT_EQ(attr(g, "a", "s1").text, "say \"hi\"");
  EXPECT_EQ(attr(g, "a", "s2").text, "line1\nline2");
  EXPECT_EQ(attr(g, "a", "s3").text, "tab\there");
  EXPECT_EQ(attr(g, "a", "s4").text, "back\\slash");
  EXPECT_EQ(attr(g, "a", "s5").text, "left\\l");
  EXPECT_EQ(attr(g, "a", "s6").text, "continued");
  EXPECT_EQ(attr(g, "a", "s7").text, "");
  EXPECT_EQ(attr(g, "a", "s8").text, "multi\nline");
  EXPECT_EQ(attr(g, "a", "s9").text, "abc");
  EXPECT_EQ(attr(g, "a", "s10").text, "/* not a comment */ // nor this");
  EXPECT_EQ(attr(g, "a", "s1").kind, ValueKind::kString);
}

TEST(DotParserTest, ValueLocationsPointAtTokenStart) {
  Graph g = parse_ok("digraph G {\n  a [label=\"x\\\"y\", w=5]\n}\n");
  const Value& label = attr(g, "a", "label");
  EXPECT_EQ(label.location.line, 2);
  EXPECT_EQ(label.location.column, 12);
  EXPECT_EQ(label.location.offset, 23u);
  EXPECT_EQ(g.source()->text()[label.location.offset], '"');
  const Value& w = attr(g, "a", "w");
  EXPECT_EQ(w.location.line, 2);
  EXPECT_EQ(w.location.column, 22);
  // locate_in_value maps an offset inside the unescaped text back to the file.
  SourceLocation y = locate_in_value(*g.source(), label.location, 2);
  EXPECT_EQ(y.column, 16);
}

TEST(DotParserTest, NodeAndEdgeLocations) {
  Graph g = parse_ok("digraph G {\n  a -> b\n    -> c\n  b [x=1]\n}\n");
  EXPECT_EQ(g.node("a")->location.line, 2);
  EXPECT_EQ(g.node("a")->location.column, 3);
  EXPECT_EQ(g.node("b")->location.column, 8);
  EXPECT_EQ(g.node("c")->location.line, 3);
  EXPECT_EQ(g.node("c")->location.column, 8);
  ASSERT_EQ(g.edge_count(), 2u);
  EXPECT_EQ(g.edge(g.edges()[0]).location.line, 2);
  EXPECT_EQ(g.edge(g.edges()[0]).location.column, 3);
  EXPECT_EQ(g.edge(g.edges()[1]).location.line, 2);
  EXPECT_EQ(g.edge(g.edges()[1]).location.column, 8);
}

TEST(DotParserTest, GraphAttributesFromBlocksAndDeclarations) {
  Graph g = parse_ok(R"(digraph Pipeline {
    graph [goal="Ship it", label="Pipeline"]
    rankdir = LR
    model_stylesheet = "* { llm_model: x; }"
    default_max_retries = 3
    graph [goal="Ship it twice"]
  })");
  EXPECT_EQ(g.name(), "Pipeline");
  EXPECT_EQ(g.data().goal(), "Ship it twice");
  EXPECT_EQ(g.data().label(), "Pipeline");
  EXPECT_EQ(g.data().get("rankdir"), "LR");
  EXPECT_EQ(g.data().model_stylesheet(), "* { llm_model: x; }");
  EXPECT_EQ(g.data().default_max_retries(), 3);
  EXPECT_EQ(g.node_count(), 0u);
}

TEST(DotParserTest, ChainedEdgesExpandWithSameAttributes) {
  Graph g = parse_ok(R"(digraph G {
    edge [weight=1, color=red]
    A -> B -> C -> D [label="next", weight=5]
  })");
  ASSERT_EQ(g.edge_count(), 3u);
  const char* pairs[3][2] = {{"A", "B"}, {"B", "C"}, {"C", "D"}};
  for (std::size_t i = 0; i < 3; ++i) {
    const EdgeData& e = g.edge(g.edges()[i]);
    EXPECT_EQ(g.from_id(g.edges()[i]), pairs[i][0]);
    EXPECT_EQ(g.to_id(g.edges()[i]), pairs[i][1]);
    EXPECT_EQ(e.order, i);
    EXPECT_EQ(e.label(), "next");
    EXPECT_EQ(e.weight(), 5);
    EXPECT_EQ(e.get("color"), "red");
  }
  EXPECT_EQ(g.node_count(), 4u);
}

TEST(DotParserTest, NodesFirstSeenInEdgesGetDefaultsInScope) {
  Graph g = parse_ok(R"(digraph G {
    node [shape=box, timeout="900s"]
    a -> b
    node [shape=diamond]
    b -> c
    c [timeout="5s"]
  })");
  EXPECT_EQ(g.node("a")->shape(), "box");
  EXPECT_EQ(g.node("b")->shape(), "box");
  EXPECT_EQ(g.node("c")->shape(), "diamond");
  EXPECT_EQ(g.node("c")->timeout_ms(), 5000);
  EXPECT_EQ(g.node("a")->timeout_ms(), 900'000);
}

TEST(DotParserTest, SubgraphDefaultsAreScoped) {
  Graph g = parse_ok(R"(digraph G {
    node [shape=box]
    subgraph cluster_loop {
      label = "Loop A"
      node [thread_id="loop-a", timeout="900s"]
      Plan      [label="Plan next step"]
      Implement [label="Implement", timeout="1800s"]
      subgraph inner {
        node [fidelity=full]
        Deep
      }
      After
    }
    Outside
  })");
  EXPECT_EQ(g.node("Plan")->thread_id(), "loop-a");
  EXPECT_EQ(g.node("Plan")->timeout_ms(), 900'000);
  EXPECT_EQ(g.node("Implement")->thread_id(), "loop-a");
  EXPECT_EQ(g.node("Implement")->timeout_ms(), 1'800'000);
  EXPECT_EQ(g.node("Deep")->thread_id(), "loop-a");
  EXPECT_EQ(g.node("Deep")->fidelity(), "full");
  EXPECT_EQ(g.node("After")->fidelity(), "");
  EXPECT_EQ(g.node("After")->thread_id(), "loop-a");
  EXPECT_FALSE(g.node("Outside")->has("thread_id"));
  EXPECT_FALSE(g.node("Outside")->has("fidelity"));
  EXPECT_EQ(g.node("Outside")->get("shape"), "box");
  // Subgraph label/attributes stay out of the graph's attributes.
  EXPECT_FALSE(g.data().has("label"));
}

TEST(DotParserTest, EdgeDefaultsAreScoped) {
  Graph g = parse_ok(R"(digraph G {
    { edge [weight=3] a -> b }
    b -> c
  })");
  EXPECT_EQ(g.edge(g.edges()[0]).weight(), 3);
  EXPECT_FALSE(g.edge(g.edges()[1]).has("weight"));
}

TEST(DotParserTest, ClassDerivation) {
  EXPECT_EQ(dot::derive_class("Loop A"), "loop-a");
  EXPECT_EQ(dot::derive_class("Code Review (fast)!"), "code-review-fast");
  EXPECT_EQ(dot::derive_class("already-hyphenated_and.dotted"), "already-hyphenatedanddotted");
  EXPECT_EQ(dot::derive_class("UPPER 42"), "upper-42");
  EXPECT_EQ(dot::derive_class("!!!"), "");
}

TEST(DotParserTest, SubgraphLabelsAddClasses) {
  Graph g = parse_ok(R"(digraph G {
    before_sub [class="x"]
    subgraph cluster_outer {
      graph [label="Outer Loop"]
      a [class="code,critical"]
      subgraph cluster_inner {
        label = "Inner"
        b
        c -> d
        before_sub
      }
      e [class="outer-loop"]
    }
    f
    b [label="B"]
    subgraph late { x; label = "Late Label" }
    subgraph nolabel { y }
  })");
  EXPECT_EQ(g.node("a")->get("class"), "code,critical,outer-loop");
  EXPECT_EQ(g.node("b")->get("class"), "outer-loop,inner");
  EXPECT_EQ(g.node("c")->get("class"), "outer-loop,inner");
  EXPECT_EQ(g.node("d")->get("class"), "outer-loop,inner");
  EXPECT_EQ(g.node("before_sub")->get("class"), "x,outer-loop,inner");
  EXPECT_EQ(g.node("e")->get("class"), "outer-loop");
  EXPECT_FALSE(g.node("f")->has("class"));
  EXPECT_EQ(g.node("x")->get("class"), "late-label");
  EXPECT_FALSE(g.node("y")->has("class"));
  std::vector<std::string> expected{"outer-loop", "inner"};
  EXPECT_EQ(g.node("b")->classes(), expected);
}

TEST(DotParserTest, ExistingNodesReferencedByEdgesInSubgraphKeepTheirClasses) {
  Graph g = parse_ok(R"(digraph G {
    a
    subgraph s { label = "Loop" a -> b }
  })");
  EXPECT_FALSE(g.node("a")->has("class"));
  EXPECT_EQ(g.node("b")->get("class"), "loop");
}

TEST(DotParserTest, GraphvizSeparatorsAndQuotedIds) {
  Graph g = parse_ok(R"(digraph "G" {
    "plan" [shape=box; label="P" prompt="x",]
    "plan" -> "exit" [a=1 b=2; c=3, d=4]
    "human.default_choice" = yes
    node [ "class" = "k" ]
    z
  })");
  EXPECT_EQ(g.name(), "G");
  EXPECT_EQ(g.node("plan")->label(), "P");
  EXPECT_EQ(g.node("plan")->prompt(), "x");
  EXPECT_EQ(g.node("plan")->shape(), "box");
  ASSERT_NE(g.node("exit"), nullptr);
  const EdgeData& e = g.edge(g.edges()[0]);
  EXPECT_EQ(e.get("a"), "1");
  EXPECT_EQ(e.get("b"), "2");
  EXPECT_EQ(e.get("c"), "3");
  EXPECT_EQ(e.get("d"), "4");
  EXPECT_EQ(g.data().get("human.default_choice"), "yes");
  EXPECT_EQ(g.node("z")->get("class"), "k");
}

TEST(DotParserTest, QualifiedKeysAndPresentationAttributes) {
  Graph g = parse_ok(R"(digraph G {
    rankdir=LR; fontname="Helvetica"; splines=ortho
    h [shape=hexagon, human.default_choice="approve", stack.child_dotfile="child.dot", fontname=Courier, color="#ff0000"]
  })");
  EXPECT_EQ(g.node("h")->get("human.default_choice"), "approve");
  EXPECT_EQ(g.node("h")->get("stack.child_dotfile"), "child.dot");
  EXPECT_EQ(g.node("h")->get("fontname"), "Courier");
  EXPECT_EQ(g.node("h")->get("color"), "#ff0000");
  EXPECT_EQ(g.data().get("fontname"), "Helvetica");
  EXPECT_EQ(g.data().get("splines"), "ortho");
}

TEST(DotParserTest, CommentsAndSemicolons) {
  Graph g = parse_ok(
      "// leading\n# preprocessor line\ndigraph G { /* block\n comment */ a; b; c -> d; // tail\n"
      "  e [x=1] /* between */ ;\n   # indented hash line\n}\n");
  EXPECT_EQ(g.node_count(), 5u);
  EXPECT_EQ(first_error("digraph G { a # b\n}"),
            "test.dot:1:15: error: [syntax] expected '}' or a statement, found '#'");
}

TEST(DotParserTest, MultiLineAttributeBlocks) {
  Graph g = parse_ok(R"(digraph Review {
    review_gate [
        shape=hexagon,
        label="Review Changes",
        type="wait.human"
    ]
  })");
  EXPECT_EQ(g.node("review_gate")->type(), "wait.human");
  EXPECT_EQ(g.node("review_gate")->label(), "Review Changes");
}

TEST(DotParserTest, KeywordsAreCaseInsensitiveAndAnonymousGraph) {
  Graph g = parse_ok("DiGraph { NODE [shape=box] Subgraph s { a } Edge [weight=2] a -> b }");
  EXPECT_EQ(g.name(), "");
  EXPECT_EQ(g.node("a")->get("shape"), "box");
  EXPECT_EQ(g.edge(g.edges()[0]).weight(), 2);
}

TEST(DotParserTest, ByteOrderMarkIsSkipped) {
  Graph g = parse_ok(
      "\xEF\xBB\xBF"
      "digraph G { a }");
  EXPECT_EQ(g.node_count(), 1u);
}

TEST(DotParserTest, DuplicateAttributeInOneBlockWarnsAndLastWins) {
  ParseResult r = parse("digraph G {\n  a [label=\"x\", shape=box, label=\"y\"]\n}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.rule, "duplicate_attribute");
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_EQ(d.location.line, 2);
  EXPECT_EQ(d.location.column, 28);
  EXPECT_EQ(r.graph->node("a")->label(), "y");
}

TEST(DotParserTest, NodeRedefinitionWarnsWithSecondLocation) {
  ParseResult r = parse("digraph G {\n  x [shape=box, label=\"a\"]\n  x [label=\"b\", shape=box]\n}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.rule, "duplicate_node");
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_EQ(d.message, "node 'x' redefines attribute 'label' (was \"a\", now \"b\")");
  EXPECT_EQ(d.node_id, "x");
  EXPECT_EQ(d.location.line, 3);
  EXPECT_EQ(d.location.column, 6);
  EXPECT_EQ(r.graph->node("x")->label(), "b");
}

TEST(DotParserTest, RedefinitionMessageEscapesValues) {
  ParseResult r = parse("digraph G { x [p=\"a\\nb \\\"q\\\"\"] x [p=c] }");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].message, "node 'x' redefines attribute 'p' (was \"a\\nb \\\"q\\\"\", now \"c\")");
}

TEST(DotParserTest, LongAttributeListsAndManyRedefinitionsStayLinear) {
  std::string text = "digraph G {\n  a [";
  for (int i = 0; i < 50000; ++i) text += "k" + std::to_string(i) + "=1, ";
  text += "k7=2]\n";
  for (int i = 0; i < 50000; ++i) text += "  b [m" + std::to_string(i) + "=1]\n";
  text += "  b [m3=2]\n}\n";
  ParseResult r = parse(text);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(r.diagnostics[0].rule, "duplicate_attribute");
  EXPECT_EQ(r.diagnostics[0].location.line, 2);
  EXPECT_EQ(r.diagnostics[0].location.column, static_cast<int>(text.find("k7=2") - (text.find('\n') + 1) + 1));
  EXPECT_EQ(r.diagnostics[1].rule, "duplicate_node");
  EXPECT_EQ(r.diagnostics[1].message, "node 'b' redefines attribute 'm3' (was \"1\", now \"2\")");
  EXPECT_EQ(r.graph->node("a")->get("k7"), "2");
  EXPECT_EQ(r.graph->node("b")->attrs.size(), 50000u);
}

TEST(DotParserTest, NodeStatementsMergeWithoutWarningWhenConsistent) {
  ParseResult r = parse(
      "digraph G { node [shape=box] x [label=\"a\"] x [prompt=\"p\"] x [label=\"a\"] node [shape=diamond] x }");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_EQ(r.graph->node("x")->label(), "a");
  EXPECT_EQ(r.graph->node("x")->prompt(), "p");
  EXPECT_EQ(r.graph->node("x")->shape(), "box");  // defaults apply when a node is created
}

TEST(DotParserTest, RejectsWithRuleIds) {
  EXPECT_EQ(first_error("graph G { a -- b }"),
            "test.dot:1:1: error: [undirected] undirected graph: attractor pipelines must be declared with 'digraph'");
  EXPECT_EQ(first_error("digraph G { a -- b }"),
            "test.dot:1:15: error: [undirected] undirected edge '--': attractor pipelines are directed graphs");
  EXPECT_EQ(first_error("strict digraph G { }"),
            "test.dot:1:1: error: [strict] 'strict' graphs are not supported: attractor keeps every edge as written");
  EXPECT_EQ(first_error("digraph A { }\ndigraph B { }"),
            "test.dot:2:1: error: [multiple_graphs] a second graph in the same file: a pipeline file holds exactly one "
            "digraph");
  EXPECT_EQ(first_error("digraph G { a [label=<<b>x</b>>] }"),
            "test.dot:1:22: error: [html_label] HTML-like values ('<...>') are not supported");
  EXPECT_EQ(first_error("digraph G { a [label=\"x] }"),
            "test.dot:1:22: error: [unterminated_string] unterminated string: the closing '\"' is missing");
  EXPECT_EQ(first_error("digraph G { /* a }"),
            "test.dot:1:13: error: [unterminated_comment] unterminated block comment: '/*' is never closed");
  EXPECT_EQ(first_error("digraph G { a [x=1 y] }"), "test.dot:1:21: error: [syntax] expected '=', found ']'");
  EXPECT_EQ(first_error("digraph G { a [x=1 }"),
            "test.dot:1:20: error: [syntax] expected ']' or another attribute, found '}'");
  EXPECT_EQ(first_error("digraph G { a -> }"),
            "test.dot:1:18: error: [syntax] expected a node id after '->', found '}'");
  EXPECT_EQ(first_error(""), "test.dot:1:1: error: [syntax] expected 'digraph', found end of file");
  EXPECT_EQ(first_error("digraph G { a [w=12abc] }"),
            "test.dot:1:18: error: [bad_value] invalid value '12abc': expected a number (42, -1, 0.5), a duration "
            "(250ms, 900s, 15m, 2h, 1d), true/false, an identifier or a quoted string");
}

TEST(DotParserTest, InvalidNodeIdsExplainWhy) {
  ParseResult r = parse("digraph G {\n  \"my node\" [shape=box]\n}");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.rule, "node_id");
  EXPECT_EQ(d.location.line, 2);
  EXPECT_EQ(d.location.column, 3);
  EXPECT_NE(d.message.find("'my node'"), std::string::npos);
  EXPECT_NE(d.message.find("directory names"), std::string::npos);
  EXPECT_EQ(d.fix, "use an identifier and put the text in a label: my_node [label=\"my node\"]");
  EXPECT_EQ(first_error("digraph G { 1 -> 2 }").substr(0, 44), "test.dot:1:13: error: [node_id] invalid node");
  EXPECT_EQ(first_error("digraph G { a-b }").substr(0, 53), "test.dot:1:13: error: [node_id] invalid node id 'a-b'");
  EXPECT_EQ(first_error("digraph G { a -> node }"),
            "test.dot:1:18: error: [node_id] 'node' is a DOT keyword and cannot be an unquoted node id");
}

TEST(DotParserTest, FileSizeLimit) {
  ParseLimits limits;
  limits.max_file_bytes = 10;
  ParseResult r = parse("digraph G { a }", limits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics[0].rule, "file_too_large");
  EXPECT_EQ(r.diagnostics[0].message, "file is 15 bytes, more than the limit of 10 bytes");
}

TEST(DotParserTest, ValueSizeLimit) {
  ParseLimits limits;
  limits.max_value_bytes = 8;
  EXPECT_TRUE(parse("digraph G { a [x=\"123456\", y=abcdefgh] }", limits).ok());
  EXPECT_EQ(first_error("digraph G { a [x=\"1234567\"] }", limits),
            "test.dot:1:18: error: [value_too_large] value is 9 bytes, more than the limit of 8 bytes");
  EXPECT_EQ(first_error("digraph G { a [x=abcdefghi] }", limits),
            "test.dot:1:18: error: [value_too_large] value is 9 bytes, more than the limit of 8 bytes");
}

TEST(DotParserTest, NestingDepthLimitBeforeRecursion) {
  std::string ok = "digraph G {";
  for (int i = 0; i < 100; ++i) ok += " subgraph {";
  ok += " a ";
  for (int i = 0; i < 100; ++i) ok += "}";
  ok += "}";
  EXPECT_TRUE(parse(ok).ok());

  std::string deep = "digraph G {\n";
  for (int i = 0; i < 100000; ++i) deep += "subgraph {\n";
  ParseResult r = parse(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics[0].rule, "nesting_depth");
  EXPECT_EQ(r.diagnostics[0].message, "subgraphs are nested more than 100 levels deep");
  EXPECT_EQ(r.diagnostics[0].location.line, 102);
  EXPECT_EQ(r.diagnostics[0].location.column, 10);

  ParseLimits shallow;
  shallow.max_subgraph_depth = 2;
  EXPECT_EQ(first_error("digraph G { { { { a } } } }", shallow),
            "test.dot:1:17: error: [nesting_depth] subgraphs are nested more than 2 levels deep");
  EXPECT_TRUE(parse("digraph G { { { a } } { b } }", shallow).ok());
}

TEST(DotParserTest, UnreadableFileIsAnIoError) {
  ParseResult r = parse_dot_file("/nonexistent/dir/missing.dot");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].rule, "io");
  EXPECT_EQ(r.diagnostics[0].message, "cannot read '/nonexistent/dir/missing.dot': No such file or directory");
  EXPECT_EQ(r.source->path(), "/nonexistent/dir/missing.dot");
}

TEST(DotParserTest, LongEdgeChainDoesNotRecurse) {
  std::string text = "digraph G {\n  n0";
  for (int i = 1; i < 100000; ++i) text += " -> n" + std::to_string(i);
  text += " [label=\"x\"]\n}\n";
  ParseResult r = parse(text);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.graph->node_count(), 100000u);
  EXPECT_EQ(r.graph->edge_count(), 99999u);
  EXPECT_EQ(r.graph->from_id(r.graph->edges().back()), "n99998");
  EXPECT_EQ(r.graph->edge(r.graph->edges().back()).label(), "x");
}

TEST(DotParserTest, HundredThousandNodesLoad) {
  std::string text = "digraph Big {\n  graph [goal=\"bench\"]\n  node [shape=box, timeout=\"900s\"]\n";
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    text += "  n" + std::to_string(i) + " [label=\"Node " + std::to_string(i) + "\", prompt=\"Do step " +
            std::to_string(i) + "\", max_retries=2]\n";
  }
  for (int i = 0; i < n; ++i) {
    text += "  n" + std::to_string(i) + " -> n" + std::to_string((i + 1) % n) + " [label=\"next\", weight=1]\n";
    text += "  n" + std::to_string(i) + " -> n" + std::to_string((i * 7919 + 13) % n) +
            " [condition=\"outcome=success\"]\n";
  }
  text += "}\n";
  ParseResult r = parse(text);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_EQ(r.graph->node_count(), 100000u);
  EXPECT_EQ(r.graph->edge_count(), 200000u);
  EXPECT_EQ(r.graph->node("n99999")->label(), "Node 99999");
  EXPECT_EQ(r.graph->node("n99999")->timeout_ms(), 900'000);
  EXPECT_EQ(r.graph->edge(r.graph->edges()[199999]).condition(), "outcome=success");
}

}  // namespace
}  // namespace attractor
