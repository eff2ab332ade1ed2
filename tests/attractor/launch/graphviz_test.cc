#include "attractor/launch/graphviz.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attractor {
namespace {

using ::testing::HasSubstr;

std::string temp_file(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("attractor-graphviz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(DotProcessRendererTest, RendersSvg) {
  DotProcessRenderer renderer;
  std::string out = temp_file("g.svg");
  RenderResult r = renderer.render("digraph G { a -> b }", "svg", out);
  ASSERT_TRUE(r.ok) << r.error;
  std::ifstream in(out);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_THAT(s.str(), HasSubstr("<svg"));
}

TEST(DotProcessRendererTest, MissingProgramSaysHowToInstall) {
  DotProcessRenderer renderer("attractor-no-such-dot-program");
  RenderResult r = renderer.render("digraph G {}", "svg", temp_file("x.svg"));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.tool_missing);
  EXPECT_THAT(r.error, HasSubstr("was not found on PATH; install graphviz"));
}

TEST(DotProcessRendererTest, GraphvizErrorsAreReported) {
  DotProcessRenderer renderer;
  RenderResult r = renderer.render("digraph G { a -> }", "svg", temp_file("y.svg"));
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.tool_missing);
  EXPECT_THAT(r.error, HasSubstr("`dot -Tsvg` failed: "));
  EXPECT_THAT(r.error, HasSubstr("syntax error"));
}

}  // namespace
}  // namespace attractor
