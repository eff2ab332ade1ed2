// `attractor rewind RUN_DIR --to NODE[@VISIT]` and `attractor fork RUN_DIR --at NODE[@VISIT]
// [--logs-root DIR]`: a worktree run taken back to a completed stage, or a new run made from one
// (docs/workspace.md, section 6).

#include <cstdio>
#include <string>
#include <variant>

#include <CLI/CLI.hpp>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/launch/run_fork.h"
#include "attractor/launch/run_rewind.h"

namespace attractor {

namespace {

std::string short_commit(const std::string& commit) { return commit.substr(0, 12); }

}  // namespace

int run_rewind_command(int argc, char** argv) { return run_rewind_command(argc, argv, posix_run_disk()); }

int run_rewind_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{
      "Take a worktree run back to just after one of its completed stages: its checkpoint, its "
      "stage folders and its worktree. The later stages' folders move to RUN_DIR/rewound-N, their "
      "commits stay reachable from refs/attractor/rewound/<run-id>/N; `attractor resume RUN_DIR` "
      "then continues from there."};
  app.name("attractor rewind");
  std::string run_dir, to;
  app.add_option("RUN_DIR", run_dir, "run directory")->required();
  app.add_option("--to", to, "NODE or NODE@VISIT (1 = its first execution; default its last)")->required();
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (auto problem = run_directory_problem(run_dir, true)) {
    std::fprintf(stderr, "attractor rewind: %s\n", problem->c_str());
    return kExitUsage;
  }
  auto result = rewind_run(run_dir, to, disk);
  if (auto* refused = std::get_if<RunRefusal>(&result)) {
    std::fprintf(stderr, "attractor rewind: %s\n", refused->message.c_str());
    return refused->exit_code;
  }
  const RewindDone& done = std::get<RewindDone>(result);
  std::printf("rewound %s to %s: worktree at %s, next node %s\n", run_dir.c_str(), done.point.c_str(),
              short_commit(done.commit).c_str(), done.next_node.c_str());
  std::printf("kept: %zu stage folder%s in %s, commits up to %s in %s\n", done.moved, done.moved == 1 ? "" : "s",
              done.archive.c_str(), short_commit(done.old_head).c_str(), done.ref.c_str());
  std::printf("continue with: attractor resume %s\n", run_dir.c_str());
  return kExitSuccess;
}

int run_fork_command(int argc, char** argv) { return run_fork_command(argc, argv, posix_run_disk()); }

int run_fork_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{
      "Make a new worktree run from one of a run's completed stages: a new id, run directory and "
      "branch (from the commit that stage left), with the original's state just after that stage as "
      "its checkpoint. The original is not changed. `attractor resume NEW_DIR` runs the fork."};
  app.name("attractor fork");
  std::string run_dir, at, logs_root;
  app.add_option("RUN_DIR", run_dir, "run directory to fork")->required();
  app.add_option("--at", at, "NODE or NODE@VISIT (1 = its first execution; default its last)")->required();
  app.add_option("--logs-root", logs_root, "the new run's directory (default: a new folder beside RUN_DIR)");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (auto problem = run_directory_problem(run_dir, true)) {
    std::fprintf(stderr, "attractor fork: %s\n", problem->c_str());
    return kExitUsage;
  }
  auto result = fork_run(run_dir, at, logs_root, disk);
  if (auto* refused = std::get_if<RunRefusal>(&result)) {
    std::fprintf(stderr, "attractor fork: %s\n", refused->message.c_str());
    return refused->exit_code;
  }
  const ForkDone& done = std::get<ForkDone>(result);
  std::printf("forked %s at %s: run %s in %s\n", run_dir.c_str(), done.point.c_str(), done.run_id.c_str(),
              done.run_dir.c_str());
  std::printf("branch %s from %s, next node %s\n", done.branch.c_str(), short_commit(done.commit).c_str(),
              done.next_node.c_str());
  std::printf("continue with: attractor resume %s\n", done.run_dir.c_str());
  return kExitSuccess;
}

}  // namespace attractor
