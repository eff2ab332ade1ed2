#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_test_support.h"

namespace attractor::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(ValidateCommandTest, ValidGraphExitsZeroWithSummary) {
  CommandResult r = run_attractor({"validate", "graphs/simple.dot"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "graphs/simple.dot: ok: 4 nodes, 3 edges, 0 warnings\n");
}

TEST(ValidateCommandTest, LintErrorsExitTwoInCompilerForm) {
  std::string dir = make_temp_dir();
  std::string path = write_file(dir, "bad.dot",
                                "digraph G {\n  start [shape=Mdiamond]\n  a [prompt=\"x\"]\n  start -> a\n}\n");
  CommandResult r = run_attractor({"validate", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(": error: [terminal_node]"));
  EXPECT_THAT(r.err, HasSubstr(path + ": 1 error"));
}

TEST(ValidateCommandTest, StrictTurnsWarningsIntoExitTwo) {
  std::string dir = make_temp_dir();
  const std::string body =
      "  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  work [prompt=\"w\"]\n"
      "  start -> work\n  work -> exit [condition=\"outcom=success\"]\n}\n";
  std::string path = write_file(dir, "warn.dot", "digraph G {\n" + body);
  CommandResult plain = run_attractor({"validate", path});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.err, HasSubstr(path + ":6:28: warning: [condition_key_spelling]"));
  CommandResult strict = run_attractor({"validate", "--strict", path});
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_THAT(strict.err, HasSubstr(path + ":6:28: error: [condition_key_spelling] condition on edge work -> exit "
                                           "reads context key 'outcom', which nothing sets before the run (a warning, "
                                           "an error in strict mode)\n"));
  EXPECT_THAT(strict.err, HasSubstr(path + ": 1 error, 0 warnings"));
  std::string graph_strict = write_file(dir, "strict.dot", "digraph G {\n  graph [strict=true]\n" + body);
  EXPECT_EQ(run_attractor({"validate", graph_strict}).exit_code, 2);
}

// Issue 36, point 3: a typo in a value or in a name of a known family is reported where it is
// written, with the record's values and a "did you mean".
TEST(ValidateCommandTest, ValuesAreCheckedWhereTheyAreWritten) {
  std::string dir = make_temp_dir();
  std::string path = write_file(
      dir, "typos.dot",
      "digraph G {\n"
      "  start [shape=Mdiamond]\n"
      "  exit [shape=Msquare]\n"
      "  implement [prompt=\"p\", llm_provider=agent, reasoning_effort=hihg]\n"
      "  review [prompt=\"r\", workdri=\"src\", agent.max_tool_round=5, agent.max_turns=two]\n"
      "  merge [shape=component, join_policy=wait_al]\n"
      "  start -> implement -> review -> merge -> exit\n"
      "  merge -> implment\n"
      "}\n");
  CommandResult r = run_attractor({"validate", path});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr(path + ":4:63: error: [attribute_type] node 'implement': reasoning_effort must be "
                                      "low, medium, high or none, got 'hihg'\n"));
  EXPECT_THAT(r.err, HasSubstr("  fix: did you mean 'high'?\n"));
  EXPECT_THAT(r.err, HasSubstr(path + ":5:31: warning: [attribute_spelling] unknown attribute 'workdri'; did you "
                                      "mean 'workdir'?\n"));
  EXPECT_THAT(r.err, HasSubstr(path + ":5:59: warning: [attribute_spelling] unknown attribute "
                                      "'agent.max_tool_round'; did you mean 'agent.max_tool_rounds'?\n"));
  EXPECT_THAT(r.err, HasSubstr(path + ":5:78: error: [attribute_type] node 'review': agent.max_turns must be a "
                                      "non-negative integer, got 'two'\n"));
  EXPECT_THAT(r.err, HasSubstr("join_policy must be wait_all, first_success or k_of_n, got 'wait_al'\n"));
  EXPECT_THAT(r.err, HasSubstr("  fix: did you mean 'wait_all'?\n"));
  EXPECT_THAT(r.err, HasSubstr("error: [dead_end] node 'implment' has no outgoing edge"));
  EXPECT_THAT(r.err, HasSubstr("  fix: did you mean 'implement'? An edge naming 'implment' creates that node: "
                               "correct the edge\n"));
}

// An unknown name in a family that records define (`agent.*`) is a warning, and an error with --strict,
// even when no known name is close.
TEST(ValidateCommandTest, UnknownNamesOfAKnownFamilyWarnAndFailStrict) {
  std::string dir = make_temp_dir();
  std::string path = write_file(dir, "family.dot",
                                "digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n"
                                "  work [prompt=\"w\", agent.temperature=\"0.2\", my.own=\"x\"]\n"
                                "  start -> work -> exit\n}\n");
  CommandResult plain = run_attractor({"validate", path});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.err, HasSubstr(path + ":4:39: warning: [attribute_spelling] unknown attribute "
                                          "'agent.temperature': nothing reads it, and the agent.* attributes are "
                                          "agent.instructions, agent.max_tool_rounds and agent.max_turns\n"));
  EXPECT_THAT(plain.err, HasSubstr(path + ": ok: 3 nodes, 2 edges, 1 warning\n"));
  CommandResult strict = run_attractor({"validate", "--strict", path});
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_THAT(strict.err, HasSubstr("error: [attribute_spelling] unknown attribute 'agent.temperature'"));
}

TEST(ValidateCommandTest, ParseErrorShowsLineColumnAndCaret) {
  std::string dir = make_temp_dir();
  std::string path = write_file(dir, "syntax.dot", "digraph G {\n  a -> [label=\"x\"]\n}\n");
  CommandResult r = run_attractor({"validate", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, StartsWith(path + ":2:8: error: ["));
  EXPECT_THAT(r.err, HasSubstr("\n    a -> [label=\"x\"]\n         ^\n"));
}

TEST(ValidateCommandTest, JsonListsDiagnostics) {
  std::string dir = make_temp_dir();
  std::string path = write_file(dir, "bad.dot",
                                "digraph G {\n  start [shape=Mdiamond]\n  a [prompt=\"x\"]\n  start -> a\n}\n");
  CommandResult r = run_attractor({"validate", "--json", path});
  EXPECT_EQ(r.exit_code, 2);
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  bool found = false;
  for (const auto& d : j) {
    for (const char* key : {"rule", "severity", "message", "node", "edge", "line", "column", "fix"}) {
      EXPECT_TRUE(d.contains(key)) << key;
    }
    if (d["rule"] == "terminal_node") found = d["severity"] == "error";
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(ValidateCommandTest, MissingFileIsAnError) {
  CommandResult r = run_attractor({"validate", "no/such/file.dot"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no/such/file.dot"));
}

TEST(ValidateCommandTest, UsageErrorsExitTwo) {
  EXPECT_EQ(run_attractor({"validate"}).exit_code, 2);
  EXPECT_EQ(run_attractor({"validate", "--bogus", "graphs/simple.dot"}).exit_code, 2);
  EXPECT_EQ(run_attractor({"frobnicate"}).exit_code, 2);
}

TEST(CliTest, VersionAndHelp) {
  CommandResult v = run_attractor({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_THAT(v.out, StartsWith("attractor "));
  CommandResult h = run_attractor({"help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_THAT(h.out, HasSubstr("validate"));
  EXPECT_THAT(h.out, HasSubstr("render"));
  for (const char* cmd : {"validate", "render"}) {
    CommandResult sub = run_attractor({cmd, "--help"});
    EXPECT_EQ(sub.exit_code, 0) << cmd;
    EXPECT_THAT(sub.out, HasSubstr("attractor " + std::string(cmd))) << cmd;
    CommandResult via_help = run_attractor({"help", cmd});
    EXPECT_EQ(via_help.out, sub.out) << cmd;
  }
}

TEST(ExampleGraphsTest, EveryShippedGraphValidatesWithoutErrors) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("graphs")) {
    if (entry.path().extension() != ".dot") continue;
    ++count;
    CommandResult r = run_attractor({"validate", entry.path().string()});
    EXPECT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.err;
  }
  EXPECT_GE(count, 6);
}

}  // namespace
}  // namespace attractor::testing

namespace attractor::testing {
namespace {

TEST(ResumeCommandTest, RefusesToReseedTheContext) {
  CommandResult r = run_attractor({"resume", "/nonexistent/run", "--set", "x=1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "attractor resume: --set, --set-json and --context seed a new run's context; a resumed run "
            "continues with the context saved in its checkpoint\n");
}

}  // namespace
}  // namespace attractor::testing
