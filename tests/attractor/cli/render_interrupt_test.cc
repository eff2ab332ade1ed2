// `attractor render` stopped by Ctrl-C or SIGTERM while Graphviz runs: the real binary with a `dot`
// on PATH that writes part of an image and then hangs. Nothing of it may outlive attractor, and
// no partial output file may be left behind (issue 36, point 6).

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;

/// A `dot` that writes half an SVG (to -o when given, else stdout), records its pid and hangs.
void write_hanging_dot(const ScratchDir& dir) {
  fs::create_directories(dir.sub("bin"));
  spit(dir.sub("bin/dot"),
       "#!/bin/sh\n"
       "if [ \"$2\" = \"-o\" ]; then exec >\"$3\"; fi\n"
       "printf '<svg partial'\n"
       "echo $$ > '" +
           dir.sub("dot.pid") +
           "'\n"
           "exec sleep 60\n");
  fs::permissions(dir.sub("bin/dot"), fs::perms::owner_all);
}

bool wait_for_file(const std::string& path) {
  // The script writes the file after creating it: wait for its contents, not only its name.
  for (int i = 0; i < 1000 && (!fs::exists(path) || slurp(path).empty()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return fs::exists(path) && !slurp(path).empty();
}

/// True once process `pid` has ended (gone, or a zombie nobody reaped), within five seconds.
bool ends_soon(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    if (!(stat >> pid_field >> comm >> state) || state == "Z") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void interrupt_render_with(int sig) {
  ScratchDir dir;
  write_hanging_dot(dir);
  const std::string out = dir.sub("out.svg");
  pid_t render = hardening::spawn_program(
      ATTRACTOR_BINARY_PATH, {"render", std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot", "-o", out},
      {"PATH=" + dir.sub("bin") + ":" + std::getenv("PATH")}, dir.sub("render.log"));
  ASSERT_TRUE(wait_for_file(dir.sub("dot.pid"))) << slurp(dir.sub("render.log"));
  const pid_t dot = std::stoi(slurp(dir.sub("dot.pid")));
  ::kill(render, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(render, &status, 0), render);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
  EXPECT_TRUE(ends_soon(dot)) << "Graphviz outlived attractor render";
  EXPECT_FALSE(fs::exists(out)) << "partial output left: " << slurp(out);
  EXPECT_FALSE(fs::exists(out + ".tmp"));
}

TEST(RenderInterruptTest, CtrlCEndsGraphvizAndLeavesNoPartialFile) { interrupt_render_with(SIGINT); }

TEST(RenderInterruptTest, SigtermEndsGraphvizAndLeavesNoPartialFile) { interrupt_render_with(SIGTERM); }

TEST(RenderInterruptTest, AFailingGraphvizLeavesNoFileBehind) {
  ScratchDir dir;
  fs::create_directories(dir.sub("bin"));
  spit(dir.sub("bin/dot"),
       "#!/bin/sh\nif [ \"$2\" = \"-o\" ]; then exec >\"$3\"; fi\nprintf '<svg partial'\necho boom >&2\nexit 1\n");
  fs::permissions(dir.sub("bin/dot"), fs::perms::owner_all);
  const std::string out = dir.sub("out.svg");
  hardening::ProcessOptions options;
  options.env = {"PATH=" + dir.sub("bin") + ":" + std::getenv("PATH")};
  hardening::ProcessResult r = hardening::run_attractor(
      {"render", std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot", "-o", out}, options);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "attractor render: `dot -Tsvg` failed: boom\n");
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace attractor::testing
