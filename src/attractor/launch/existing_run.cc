#include "attractor/launch/existing_run.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <vector>

#include "attractor/launch/run_summary.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

constexpr std::array<const char*, 4> kRunRecords = {"manifest.json", "checkpoint.json", "checkpoint.journal",
                                                    "events.jsonl"};

std::string run_file(const std::string& dir, const std::string& name) { return (fs::path(dir) / name).string(); }

/// "graph 'G', completed, started T" from what the run directory says; "" when it says nothing.
std::string describe_existing_run(const std::string& dir, std::int64_t now_ms) {
  RunSummary s = summarize_run(dir, now_ms, RunningDetail::kBrief);
  if (s.status == "unreadable") return "unreadable: " + s.error;
  std::vector<std::string> parts;
  if (!s.graph.empty()) parts.push_back("graph '" + s.graph + "'");
  if (!s.status.empty()) parts.push_back(s.status);
  if (!s.started.empty()) parts.push_back("started " + s.started);
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
  return text;
}

}  // namespace

std::string run_content_of(RunDisk& disk, const std::string& dir) {
  if (!disk.is_directory(dir)) return "";
  for (const char* record : kRunRecords) {
    if (disk.exists(run_file(dir, record))) return record;
  }
  std::vector<std::string> names = disk.list_directory(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (disk.is_directory(run_file(dir, name))) return name + "/";
  }
  return "";
}

std::optional<std::string> existing_run_problem(RunDisk& disk, const std::string& dir, std::int64_t now_ms) {
  const std::string content = run_content_of(disk, dir);
  if (content.empty()) return std::nullopt;
  std::string what = content == kRunRecords[0] ? describe_existing_run(dir, now_ms) : "";
  if (what.empty()) what = "it has " + content;
  return dir + " already holds a run (" + what + "); nothing was written. Resume it with `attractor resume " + dir +
         "`, choose another --logs-root, or add --move-aside to move it to " + aside_path(disk, dir) +
         " and start afresh";
}

std::string aside_path(RunDisk& disk, const std::string& dir) {
  std::string base = fs::path(dir).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  for (int n = 1;; ++n) {
    std::string candidate = base + ".old-" + std::to_string(n);
    if (!disk.exists(candidate)) return candidate;
  }
}

}  // namespace attractor
