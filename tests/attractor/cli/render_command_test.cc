#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_test_support.h"

namespace attractor::testing {
namespace {

using ::testing::HasSubstr;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RenderCommandTest, WritesSvgThroughGraphviz) {
  std::string out = make_temp_dir() + "/branch.svg";
  CommandResult r = run_attractor({"render", "graphs/branch.dot", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = slurp(out);
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("Tests passing?"));
  EXPECT_THAT(svg, HasSubstr("[outcome=success]"));
}

TEST(RenderCommandTest, WritesPngThroughGraphviz) {
  std::string out = make_temp_dir() + "/simple.png";
  CommandResult r = run_attractor({"render", "graphs/simple.dot", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string png = slurp(out);
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST(RenderCommandTest, DotOutputKeepsShapesLabelsAndConditions) {
  std::string out = make_temp_dir() + "/branch.dot";
  CommandResult r = run_attractor({"render", "graphs/branch.dot", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string dot = slurp(out);
  EXPECT_THAT(dot, HasSubstr("\"gate\" [label=\"Tests passing?\", shape=\"diamond\""));
  EXPECT_THAT(dot, HasSubstr("\"gate\" -> \"exit\" [label=\"Yes\\n[outcome=success]\"];"));
  EXPECT_THAT(dot, HasSubstr("rankdir=\"LR\""));
}

TEST(RenderCommandTest, StdoutWhenNoOutputGiven) {
  CommandResult r = run_attractor({"render", "graphs/simple.dot"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("digraph \"Simple\" {"));
}

TEST(RenderCommandTest, UnknownExtensionIsUsageError) {
  CommandResult r = run_attractor({"render", "graphs/simple.dot", "-o", "out.gif"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("use .svg, .png, .pdf or .dot"));
}

TEST(RenderCommandTest, RunOverlayColoursOutcomesAndPath) {
  std::string run = make_temp_dir();
  nlohmann::json checkpoint = {{"current_node", "exit"}, {"completed_nodes", {"start", "run_tests", "report", "exit"}}};
  std::ofstream(run + "/checkpoint.json") << checkpoint.dump();
  std::filesystem::create_directories(run + "/run_tests");
  std::filesystem::create_directories(run + "/report");
  std::ofstream(run + "/run_tests/status.json") << R"({"outcome":"success"})";
  std::ofstream(run + "/report/status.json") << R"({"outcome":"fail"})";
  CommandResult r = run_attractor({"render", "graphs/simple.dot", "--run", run});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"run_tests\" [label=\"Run Tests\", shape=\"box\", tooltip=\"Run the test suite and "
                               "report results\", style=\"filled\", fillcolor=\"#c8e6c9\"]"));
  EXPECT_THAT(r.out, HasSubstr("fillcolor=\"#ffcdd2\""));
  EXPECT_THAT(r.out, HasSubstr("\"report\" -> \"exit\" [penwidth=\"3\", color=\"#1565c0\"];"));
}

TEST(RenderCommandTest, RealRunMarksParallelBranchesAsTaken) {
  std::string run = make_temp_dir() + "/run";
  CommandResult ran = run_attractor(
      {"run", "graphs/engine_demo.dot", "--simulate", "--auto-approve", "--quiet", "--logs-root", run});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  CommandResult r = run_attractor({"render", "graphs/engine_demo.dot", "--run", run});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* edge : {"\"reviews\" -> \"style\" [penwidth=\"3\"", "\"reviews\" -> \"security\" [penwidth=\"3\"",
                           "\"style\" -> \"join\" [penwidth=\"3\"", "\"security\" -> \"join\" [penwidth=\"3\""}) {
    EXPECT_THAT(r.out, HasSubstr(edge));
  }
  EXPECT_THAT(r.out, HasSubstr("\"approve\" -> \"implement\" [label=\"[N] No, rework\"];"));
}

TEST(RenderCommandTest, ARunOfAnotherPipelineIsRefusedUnlessForced) {
  std::string dir = make_temp_dir();
  std::string run = dir + "/run";
  ASSERT_EQ(run_attractor({"run", "graphs/simple.dot", "--simulate", "-q", "--logs-root", run}).exit_code, 0);
  CommandResult other = run_attractor({"render", "graphs/engine_demo.dot", "--run", run});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(other.err, "attractor render: " + run + " is a run of pipeline `Simple` (" +
                           std::filesystem::absolute("graphs/simple.dot").lexically_normal().string() +
                           "), not of `engine_demo` (graphs/engine_demo.dot); pass that file, or --force to draw it "
                           "anyway\n");
  EXPECT_EQ(run_attractor({"render", "graphs/engine_demo.dot", "--run", run, "--force"}).exit_code, 0);

  std::string edited = dir + "/simple.dot";
  std::ofstream(edited) << slurp("graphs/simple.dot") << "\n// edited\n";
  CommandResult changed = run_attractor({"render", edited, "--run", run});
  EXPECT_EQ(changed.exit_code, 0);
  EXPECT_EQ(changed.err, "attractor render: warning: " + edited + " changed since the run in " + run +
                             " (its sha256 differs from the manifest's); nodes it no longer has are not drawn\n");
  EXPECT_EQ(run_attractor({"render", "graphs/simple.dot", "--run", run}).err, "");
}

TEST(RenderCommandTest, MissingRunDirectoryIsReported) {
  CommandResult r = run_attractor({"render", "graphs/simple.dot", "--run", "/nonexistent/run"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "attractor render: /nonexistent/run: no such directory\n");
}

}  // namespace
}  // namespace attractor::testing
