// `attractor status RUN_DIR [--follow] [--json]`: where a run stands; with --follow, its events as
// they happen until it ends, for a run started by any process (the events file is the interface).

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "attractor/base/clock.h"
#include "attractor/base/json_limits.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/cli/progress_display.h"
#include "attractor/launch/run_summary.h"
#include "attractor/launch/run_workspace.h"
#include "attractor/engine/events.h"
#include "attractor/engine/usage_tally.h"

namespace attractor {

namespace {

void print_summary(const RunSummary& s) {
  std::printf("run:      %s\n", s.run_dir.c_str());
  std::printf("pipeline: %s (%s)\n", s.graph.c_str(), s.graph_path.c_str());
  std::printf("status:   %s%s\n", s.status.c_str(), s.pid ? fmt::format(" (pid {})", *s.pid).c_str() : "");
  if (!s.reason.empty()) std::printf("reason:   %s\n", s.reason.c_str());
  std::printf("workspace: %s\n", describe_workspace(s.workspace, "the directory it was started in").c_str());
  if (s.changed_files)
    std::printf("changed:  %zu file%s (attractor diff %s)\n", *s.changed_files, *s.changed_files == 1 ? "" : "s",
                s.run_dir.c_str());
  std::printf("started:  %s, %s\n", s.started.c_str(), format_duration(s.duration_ms).c_str());
  const bool finished = s.status == "completed" || s.status == "failed";
  std::printf("%s %s\n", finished ? "last:    " : "next:    ", s.node.empty() ? "-" : s.node.c_str());
  std::printf("stages:   %zu completed\n", s.completed_nodes.size());
  for (std::size_t i = 0; i < s.completed_nodes.size(); ++i) {
    const std::string status = i < s.completed_statuses.size() ? s.completed_statuses[i] : "";
    std::printf("  %s %-24s %s\n", status == "fail" ? "✗" : "✓", s.completed_nodes[i].c_str(), status.c_str());
  }
  if (usage_requests(s.usage) > 0) std::printf("tokens:   %s\n", usage_text(s.usage).c_str());
}

/// Reads the complete lines appended to `path` since `offset`, advancing it; a partial last
/// line waits for the next call.
std::vector<std::string> new_lines(const std::string& path, std::uint64_t& offset) {
  std::vector<std::string> lines;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return lines;  // a FIFO would block the follower
  std::ifstream in(path, std::ios::binary);
  if (!in) return lines;
  in.seekg(static_cast<std::streamoff>(offset));
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t start = 0;
  for (std::size_t nl = chunk.find('\n'); nl != std::string::npos; nl = chunk.find('\n', start)) {
    lines.push_back(chunk.substr(start, nl - start));
    start = nl + 1;
  }
  offset += start;
  return lines;
}

/// Follows `run_dir`'s events until a final event, or until nobody runs it and nothing new came.
void follow(const std::string& run_dir, bool json, Clock& clock) {
  const std::string events = run_dir + "/events.jsonl";
  ProgressDisplay display(stdout, false, false);
  std::uint64_t offset = 0;
  while (true) {
    const bool alive = summarize_run(run_dir, clock.now_ms()).status == "running";
    bool ended = false;
    for (const std::string& line : new_lines(events, offset)) {
      nlohmann::json j = parse_json_or_discarded(line);
      if (!j.is_object()) continue;
      std::string name = j.value("event", std::string());
      if (json) {
        std::printf("%s\n", line.c_str());
      } else {
        display.on_event(Event{name, 0, j});
      }
      ended = ended || is_final_event(name);
    }
    std::fflush(stdout);
    if (ended || !alive) return;
    clock.sleep_ms(100, CancelToken());
  }
}

}  // namespace

int run_status_command(int argc, char** argv) {
  CLI::App app{
      "Show where a run stands: status, next or last node, completed stages, usage. With --follow, print "
      "its events as they happen until it ends (a run started by any process)."};
  app.name("attractor status");
  std::string run_dir;
  bool follow_events = false, json = false;
  app.add_option("RUN_DIR", run_dir, "run directory")->required();
  app.add_flag("--follow,-f", follow_events, "print the run's events as they happen until it ends");
  app.add_flag("--json", json, "the summary as JSON (with --follow: the events as JSON lines, then the summary)");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (auto problem = run_directory_problem(run_dir, true)) {
    std::fprintf(stderr, "attractor status: %s\n", problem->c_str());
    return kExitUsage;
  }
  if (follow_events) follow(run_dir, json, system_clock());
  RunSummary s = summarize_run(run_dir, system_clock().now_ms());
  add_workspace_changes(s);
  if (json) {
    std::printf("%s\n", s.to_json().dump(2).c_str());
  } else {
    if (follow_events) std::printf("\n");
    print_summary(s);
  }
  return s.status == "unreadable" ? kExitUsage : kExitSuccess;
}

}  // namespace attractor
