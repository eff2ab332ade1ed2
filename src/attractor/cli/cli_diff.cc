// `attractor diff RUN_DIR [--stage NODE[@VISIT]]`: what a worktree run changed, as a unified
// diff: the whole run (its base commit to its last stage commit) or one stage's commit
// (docs/workspace.md, "Diffs").

#include <cstdio>
#include <string>
#include <variant>

#include <CLI/CLI.hpp>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/launch/run_workspace.h"
#include "attractor/launch/stage_point.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/run_directory.h"

namespace attractor {

namespace {

int refuse(const std::string& message, int code = kExitUsage) {
  std::fprintf(stderr, "attractor diff: %s\n", message.c_str());
  return code;
}

}  // namespace

int run_diff_command(int argc, char** argv) {
  CLI::App app{
      "Print what a worktree run changed as a unified diff (git's format, binary files included): the "
      "whole run since its base commit, or with --stage one stage's commit."};
  app.name("attractor diff");
  std::string run_dir, stage;
  bool stat = false;
  app.add_option("RUN_DIR", run_dir, "run directory")->required();
  app.add_option("--stage", stage, "NODE or NODE@VISIT (1 = its first execution; default its last)");
  app.add_flag("--files", stat, "print only the number of files changed");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (auto problem = run_directory_problem(run_dir, true)) return refuse(*problem);
  Manifest manifest;
  Checkpoint cp;
  try {
    manifest = read_manifest(run_dir);
    cp = load_checkpoint(run_dir);
  } catch (const std::exception& e) {
    return refuse(e.what());
  }
  if (!manifest.workspace.is_object()) {
    return refuse(run_dir + " is an in-place run: its stages commit nothing (run with --workspace worktree)");
  }
  try {
    WorktreePlan plan = WorktreePlan::from_json(manifest.workspace);
    CommitDiff diff;
    if (stage.empty()) {
      diff = run_change(plan, cp.completed_commits);
    } else {
      auto point = find_stage_point(stage, cp.completed_nodes);
      if (auto* refused = std::get_if<std::string>(&point)) return refuse(*refused);
      diff = stage_change(plan, cp.completed_commits, std::get<StagePoint>(point).entry);
    }
    if (stat) {
      std::printf("%zu\n", diff.files);
    } else {
      std::fwrite(diff.patch.data(), 1, diff.patch.size(), stdout);
    }
  } catch (const std::exception& e) {
    return refuse(e.what(), kExitRuntime);
  }
  return kExitSuccess;
}

}  // namespace attractor
