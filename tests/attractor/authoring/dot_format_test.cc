// The formatter (docs/authoring.md, "attractor fmt"): the canonical layout, comments kept, the
// same graph read back, idempotence, and every .dot file of the repository.

#include "attractor/authoring/dot_format.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "parser/dot_parser.h"
#include "parser/dot_writer.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

std::string fmt(const std::string& text) {
  FormatResult r = format_pipeline_text("t.dot", text);
  EXPECT_TRUE(r.text.has_value()) << (r.diagnostics.empty() ? "" : r.diagnostics.front().message);
  return r.text.value_or("");
}

TEST(DotFormatTest, CanonicalLayoutOfAMessyFile) {
  std::string in =
      "digraph   G{graph[goal=\"g\"] ;rankdir = LR\n"
      "start[shape=Mdiamond];exit [ shape = Msquare ]\n"
      "\"work\" [prompt=\"do it\", type=codergen label=\"Work\"][max_retries=2]\n"
      "start->work->exit[label=\"go\",weight=3]}\n";
  EXPECT_EQ(fmt(in),
            "digraph G {\n"
            "    graph [goal=\"g\"]\n"
            "    rankdir=LR\n"
            "    start [shape=Mdiamond]\n"
            "    exit [shape=Msquare]\n"
            "    work [label=\"Work\", type=codergen, prompt=\"do it\", max_retries=2]\n"
            "    start -> work -> exit [label=\"go\", weight=3]\n"
            "}\n");
}

TEST(DotFormatTest, KeepsEveryCommentWhereItBelongs) {
  std::string in =
      "// file header\n"
      "\n"
      "digraph G {\n"
      "  // before start\n"
      "  start [shape=Mdiamond] // after start\n"
      "\n"
      "\n"
      "  exit [shape=Msquare,\n"
      "        /* why */ label=\"End\", // the end\n"
      "  ]\n"
      "  start -> exit\n"
      "  /* dangling */\n"
      "}\n"
      "// tail\n";
  EXPECT_EQ(fmt(in),
            "// file header\n"
            "\n"
            "digraph G {\n"
            "    // before start\n"
            "    start [shape=Mdiamond] // after start\n"
            "\n"
            "    exit [\n"
            "        /* why */\n"
            "        label=\"End\", // the end\n"
            "        shape=Msquare,\n"
            "    ]\n"
            "    start -> exit\n"
            "    /* dangling */\n"
            "}\n"
            "// tail\n");
}

TEST(DotFormatTest, BreaksLongAndMultiLineListsOneAttributePerLine) {
  std::string prompt(90, 'x');
  std::string in = "digraph G { start [shape=Mdiamond] exit [shape=Msquare] a [prompt=\"" + prompt +
                   "\"] b [prompt=\"two\nlines\"] start -> a -> b -> exit }";
  EXPECT_EQ(fmt(in),
            "digraph G {\n"
            "    start [shape=Mdiamond]\n"
            "    exit [shape=Msquare]\n"
            "    a [\n"
            "        prompt=\"" +
                prompt +
                "\",\n"
                "    ]\n"
                "    b [\n"
                "        prompt=\"two\nlines\",\n"
                "    ]\n"
                "    start -> a -> b -> exit\n"
                "}\n");
}

TEST(DotFormatTest, SubgraphsIndentAndQuotesStayOnValues) {
  std::string in =
      "digraph G { subgraph cluster_a { label=\"A\" node [shape=box] x [max_retries=\"3\"] } "
      "\"s\" [shape=Mdiamond] e [shape=Msquare] s -> x -> e [label=\"a\" + \"b\"] }";
  EXPECT_EQ(fmt(in),
            "digraph G {\n"
            "    subgraph cluster_a {\n"
            "        label=\"A\"\n"
            "        node [shape=box]\n"
            "        x [max_retries=\"3\"]\n"
            "    }\n"
            "    s [shape=Mdiamond]\n"
            "    e [shape=Msquare]\n"
            "    s -> x -> e [label=\"a\" + \"b\"]\n"
            "}\n");
}

TEST(DotFormatTest, SameNameKeepsItsOrderSoTheLastStillWins) {
  std::string out = fmt("digraph G { a [z=1, label=\"x\", z=2] }");
  EXPECT_EQ(out, "digraph G {\n    a [label=\"x\", z=1, z=2]\n}\n");
}

TEST(DotFormatTest, RefusesAFileThatDoesNotParse) {
  FormatResult r = format_pipeline_text("bad.dot", "digraph G { a -> }");
  EXPECT_FALSE(r.text.has_value());
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics.front().location.line, 1);
}

TEST(DotFormatTest, HalfTypedTreeIsNotFormattable) {
  EXPECT_FALSE(formattable(read_syntax("digraph G { a [shape=")));
  EXPECT_FALSE(formattable(read_syntax("digraph G { a [shape=box")));
  EXPECT_FALSE(formattable(read_syntax("digraph G { a ")));
  EXPECT_TRUE(formattable(read_syntax("digraph G { a }")));
}

/// Every .dot file of the repository (outside build trees and third_party).
std::vector<fs::path> repository_dot_files() {
  std::vector<fs::path> out;
  fs::path root = ATTRACTOR_SOURCE_DIR;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    std::string name = it->path().filename().string();
    if (it->is_directory() &&
        (name.rfind("build", 0) == 0 || name == "third_party" || name == ".git" || name == "node_modules")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".dot") out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_comments(const std::string& text) {
  std::size_t n = 0;
  for (const SyntaxToken& t : tokenize_dot(text)) n += t.kind == SyntaxKind::kComment;
  return n;
}

TEST(DotFormatTest, EveryRepositoryPipelineFormatsIdempotentlyToTheSameGraph) {
  std::vector<fs::path> files = repository_dot_files();
  ASSERT_GT(files.size(), 20u);
  std::size_t formatted = 0;
  for (const fs::path& p : files) {
    std::string text = read_all(p);
    ParseResult parsed = parse_dot(std::make_shared<SourceFile>(p.string(), text));
    if (!parsed.ok()) continue;  // the parser's own bad-input fixtures
    FormatResult once = format_pipeline_text(p.string(), text);
    ASSERT_TRUE(once.text) << p << ": " << once.diagnostics.front().message;
    FormatResult twice = format_pipeline_text(p.string(), *once.text);
    ASSERT_TRUE(twice.text) << p;
    EXPECT_EQ(*twice.text, *once.text) << p << " is not idempotent";
    EXPECT_EQ(count_comments(*once.text), count_comments(text)) << p << " lost a comment";
    ParseResult again = parse_dot(std::make_shared<SourceFile>(p.string(), *once.text));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(write_dot(*again.graph), write_dot(*parsed.graph)) << p;
    ++formatted;
  }
  EXPECT_GT(formatted, 20u);
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

// Found by tests/fuzz/fuzz_authoring.cc: a comment left in an empty list moves to the next
// statement's leading comments on the first pass, and the empty line between them must survive
// the second pass too.
TEST(DotFormatTest, AnEmptyLineAfterAStatementsCommentsIsKeptSoFormattingIsIdempotent) {
  std::string in = "digraph G {\n    graph [\n  # moved\n     ]\n\n    start [shape=Mdiamond]\n}\n";
  std::string once = fmt(in);
  EXPECT_EQ(once, "digraph G {\n    graph []\n    # moved\n\n    start [shape=Mdiamond]\n}\n");
  EXPECT_EQ(fmt(once), once);
  EXPECT_EQ(fmt("digraph G {\n  // a\n\n  // b\n\n  x\n}\n"), "digraph G {\n    // a\n\n    // b\n\n    x\n}\n");
}

}  // namespace
}  // namespace attractor
