#include "attractor/launch/graphviz.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attractor {
namespace {

using ::testing::HasSubstr;

TEST(DotProcessRendererTest, RendersSvgIntoMemory) {
  DotProcessRenderer renderer;
  RenderResult r = renderer.render("digraph G { a -> b }", "svg");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.image, HasSubstr("<svg"));
  EXPECT_THAT(r.image, HasSubstr("<title>a&#45;&gt;b</title>"));
}

TEST(DotProcessRendererTest, MissingProgramSaysHowToInstall) {
  DotProcessRenderer renderer("attractor-no-such-dot-program");
  RenderResult r = renderer.render("digraph G {}", "svg");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.tool_missing);
  EXPECT_THAT(r.error, HasSubstr("was not found on PATH; install graphviz"));
}

TEST(DotProcessRendererTest, GraphvizErrorsAreReported) {
  DotProcessRenderer renderer;
  RenderResult r = renderer.render("digraph G { a -> }", "svg");
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.tool_missing);
  EXPECT_TRUE(r.image.empty());
  EXPECT_THAT(r.error, HasSubstr("`dot -Tsvg` failed: "));
  EXPECT_THAT(r.error, HasSubstr("syntax error"));
}

TEST(DotProcessRendererTest, AnImageBeyondTheLimitStopsDot) {
  DotProcessRenderer renderer("dot", 4096);
  std::string big = "digraph G {";
  for (int i = 0; i < 200; ++i) big += " n" + std::to_string(i) + " -> n" + std::to_string(i + 1) + ";";
  RenderResult r = renderer.render(big + " }", "svg");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.image.empty());
  EXPECT_THAT(r.error, HasSubstr("`dot -Tsvg` wrote more than 4096 bytes; render to .dot instead"));
}

TEST(DotProcessRendererTest, ADotThatExitsBeforeReadingItsInputIsReportedNotFatal) {
  DotProcessRenderer renderer("false");
  RenderResult r = renderer.render(std::string(1 << 20, 'x'), "svg");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "`false -Tsvg` failed");
}

}  // namespace
}  // namespace attractor
