// The positive case of the sandbox levels (docs/security.md): a real build and test of a small C
// project, `make test`, works as a tool stage under `workspace` and under `strict`, and the build
// output lands in the workspace.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;

const char kSource[] = "int add(int a, int b) { return a + b; }\n";
const char kTest[] = R"(#include <stdio.h>
int add(int a, int b);
int main(void) {
  if (add(2, 3) != 5 || add(-1, 1) != 0) { puts("add is wrong"); return 1; }
  puts("all 2 tests passed");
  return 0;
}
)";
const char kMakefile[] =
    "test: calc_test\n\t./calc_test\n"
    "calc_test: calc_test.o calc.o\n\tcc -o $@ calc_test.o calc.o\n"
    "%.o: %.c\n\tcc -c -o $@ $<\n";

void write_project(const std::string& dir) {
  fs::create_directories(dir);
  spit(dir + "/calc.c", kSource);
  spit(dir + "/calc_test.c", kTest);
  spit(dir + "/Makefile", kMakefile);
}

TEST(SandboxBuildTest, MakeTestOfACProjectWorksUnderWorkspaceAndStrict) {
  ScratchDir dir;
  write_project(dir.sub("ws-workspace"));
  write_project(dir.sub("ws-strict"));
  spit(dir.sub("g.dot"),
       "digraph build {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n"
       "  build_workspace [shape=parallelogram, sandbox=workspace, tool_command=\"make --no-print-directory test\", "
       "tool_cwd=\"" +
           dir.sub("ws-workspace") +
           "\"]\n"
           "  build_strict [shape=parallelogram, sandbox=strict, tool_command=\"make --no-print-directory test\", "
           "tool_cwd=\"" +
           dir.sub("ws-strict") + "\"]\n  start -> build_workspace -> build_strict -> exit\n}\n");
  ProcessResult r = run_attractor({"run", dir.sub("g.dot"), "-q", "--logs-root", dir.sub("run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string level : {"workspace", "strict"}) {
    nlohmann::json status = nlohmann::json::parse(slurp(dir.sub("run/build_" + level + "/status.json")));
    EXPECT_EQ(status["outcome"], "success") << level;
    EXPECT_EQ(status["sandbox"]["level"], level);
    EXPECT_EQ(status["sandbox"]["denied"], nlohmann::json::array()) << level;
    EXPECT_EQ(status["context_updates"]["tool.output"],
              "cc -c -o calc_test.o calc_test.c\ncc -c -o calc.o calc.c\ncc -o calc_test calc_test.o calc.o\n"
              "./calc_test\nall 2 tests passed\n")
        << level;
    for (const char* built : {"calc.o", "calc_test.o", "calc_test"})
      EXPECT_TRUE(fs::is_regular_file(dir.sub("ws-" + level + "/" + built))) << level << " " << built;
  }
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.sub("run/build_strict/status.json")))["sandbox"]["network"], "none");
}

}  // namespace
}  // namespace attractor
