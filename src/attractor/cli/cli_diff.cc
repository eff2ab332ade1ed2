// `attractor diff RUN_DIR [--stage NODE[@VISIT]] [--files]`: what a worktree run changed, as a
// unified diff: the whole run (its base commit to its last stage commit) or one stage's commit
// (docs/workspace.md, section 5).

#include <cstdio>
#include <string>
#include <variant>

#include <CLI/CLI.hpp>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/launch/run_workspace.h"

namespace attractor {

int run_diff_command(int argc, char** argv) {
  CLI::App app{
      "Print what a worktree run changed as a unified diff (git's format, binary files included): the "
      "whole run since its base commit, or with --stage one stage's commit."};
  app.name("attractor diff");
  std::string run_dir, stage;
  bool files_only = false;
  app.add_option("RUN_DIR", run_dir, "run directory")->required();
  app.add_option("--stage", stage, "NODE or NODE@VISIT (1 = its first execution; default its last)");
  app.add_flag("--files", files_only, "print only the number of files changed");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (auto problem = run_directory_problem(run_dir, true)) {
    std::fprintf(stderr, "attractor diff: %s\n", problem->c_str());
    return kExitUsage;
  }
  auto diff = run_dir_diff(run_dir, stage);
  if (auto* refused = std::get_if<RunRefusal>(&diff)) {
    std::fprintf(stderr, "attractor diff: %s\n", refused->message.c_str());
    return refused->exit_code;
  }
  const CommitDiff& d = std::get<CommitDiff>(diff);
  if (files_only) {
    std::printf("%zu\n", d.files);
  } else {
    std::fwrite(d.patch.data(), 1, d.patch.size(), stdout);
  }
  return kExitSuccess;
}

}  // namespace attractor
