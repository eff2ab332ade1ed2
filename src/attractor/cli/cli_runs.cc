// `attractor runs`: the runs under a logs root, newest first, with where each stands
// (launch/run_summary.h).

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "attractor/base/clock.h"
#include "attractor/cli/cli.h"
#include "attractor/base/input_file.h"
#include "attractor/cli/cli_support.h"
#include "attractor/cli/progress_display.h"
#include "attractor/launch/run_summary.h"
#include "attractor/launch/run_workspace.h"

namespace attractor {

int run_runs_command(int argc, char** argv) {
  CLI::App app{
      "List the runs under a logs root, newest first: status (running, completed, failed, cancelled, "
      "stopped, interrupted, unreadable), pipeline, start, duration, current node, and a worktree run's "
      "branch and changed files. A run whose process died is shown as interrupted."};
  app.name("attractor runs");
  std::string root = "checkpoints";
  bool json = false;
  app.add_option("--logs-root", root,
                 "directory holding run directories (default ./checkpoints); note that for `run` --logs-root names "
                 "one run directory");
  app.add_flag("--json", json, "one JSON array of run summaries");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  const bool given = app.count("--logs-root") > 0;
  if (auto problem = given || std::filesystem::exists(root) ? input_directory_problem(root, "a logs root")
                                                            : std::nullopt) {
    std::fprintf(stderr, "attractor runs: %s\n", problem->c_str());
    return kExitUsage;
  }
  std::vector<RunSummary> runs = list_runs(root, system_clock().now_ms());
  for (RunSummary& r : runs) add_workspace_changes(r);
  if (json) {
    nlohmann::json all = nlohmann::json::array();
    for (const RunSummary& r : runs) all.push_back(r.to_json());
    std::printf("%s\n", all.dump(2).c_str());
    return kExitSuccess;
  }
  std::printf("%-12s %-24s %-9s %-20s %-20s %-28s %-5s %s\n", "STATUS", "STARTED", "DURATION", "PIPELINE", "NODE",
              "BRANCH", "FILES", "RUN");
  for (const RunSummary& r : runs) {
    std::string status = r.status == "unreadable" ? r.status + ": " + r.error : r.status;
    std::string branch = r.workspace.is_object() ? r.workspace.value("branch", "") : "-";
    std::string files = r.changed_files ? std::to_string(*r.changed_files) : "-";
    std::printf("%-12s %-24s %-9s %-20s %-20s %-28s %-5s %s\n", status.c_str(), r.started.c_str(),
                format_duration(r.duration_ms).c_str(), r.graph.c_str(), r.node.c_str(), branch.c_str(), files.c_str(),
                r.run_dir.c_str());
  }
  return kExitSuccess;
}

}  // namespace attractor
