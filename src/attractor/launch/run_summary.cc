#include "attractor/launch/run_summary.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "attractor/base/json_limits.h"
#include "attractor/engine/event_names.h"
#include "attractor/engine/usage_tally.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/run_lock.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

/// Milliseconds since the epoch of `YYYY-MM-DDTHH:MM:SS[.mmm]Z`; 0 when it does not parse.
std::int64_t parse_utc(const std::string& text) {
  std::tm tm{};
  int millis = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &millis) < 6) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm)) * 1000 + millis;
}

/// The name and fields of the last event line of `events.jsonl` (reads only its tail).
nlohmann::json last_event(const std::string& run_dir) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(run_dir) / "events.jsonl", ec)) return nullptr;  // a FIFO would block
  std::ifstream in(fs::path(run_dir) / "events.jsonl", std::ios::binary | std::ios::ate);
  if (!in) return nullptr;
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 65536);
  in.seekg(from);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  std::size_t start = tail.rfind('\n');
  nlohmann::json j = parse_json_or_discarded(start == std::string::npos ? tail : tail.substr(start + 1));
  return j.is_object() ? j : nullptr;
}

/// The usage of a run stopped in the middle of a stage: its stop event's (which counts the requests
/// of the stage cut short, docs/llm.md section 1.4) when that counts more than the checkpoint's.
nlohmann::json stopped_run_usage(const nlohmann::json& event, const nlohmann::json& saved) {
  const bool has = event.is_object() && event.contains("usage") && event["usage"].is_object();
  return has && usage_requests(event["usage"]) > usage_requests(saved) ? event["usage"] : saved;
}

/// Why an unfinished run stopped when its last event does not say: its directory cannot be
/// written now (read-only, no permission), or "".
std::string unwritable_reason(const std::string& run_dir) {
  if (::access(run_dir.c_str(), W_OK) == 0) return "";
  return std::string("the run directory is not writable: ") + std::strerror(errno);
}

std::string unfinished_status(const std::string& run_dir, const nlohmann::json& event, std::string& reason) {
  std::string name = event.is_object() ? event.value("event", std::string()) : "";
  if (name == kPipelineInterruptedEvent && event.value("reason", std::string()) == kInterruptedByWriteFailure) {
    reason = event.value("error", std::string(kInterruptedByWriteFailure));
    return "interrupted";
  }
  if (name == kPipelineInterruptedEvent) {
    reason = event.value("reason", std::string());
    const bool not_cancelled = reason == kInterruptedByShutdown || reason.rfind(kInterruptedAtGatePrefix, 0) == 0;
    return not_cancelled ? "interrupted" : "cancelled";
  }
  if (name == kBudgetExhaustedEvent) {
    reason = event.value("reason", std::string());
    return "stopped";
  }
  reason = unwritable_reason(run_dir);
  return "interrupted";
}

/// The summary of a run that process `pid` is running, from its manifest fields in `s` and its
/// last event.
RunSummary brief_running(RunSummary s, long pid, std::int64_t now_ms) {
  s.pid = pid;
  s.status = "running";
  const nlohmann::json event = last_event(s.run_dir);
  if (event.is_object() && event.contains("name") && event["name"].is_string()) s.node = event["name"];
  s.duration_ms = s.started_ms > 0 && now_ms >= s.started_ms ? now_ms - s.started_ms : 0;
  return s;
}

}  // namespace

bool is_final_event(const std::string& name) {
  return name == kPipelineCompletedEvent || name == kPipelineFailedEvent || name == kPipelineInterruptedEvent ||
         name == kBudgetExhaustedEvent;
}

nlohmann::json RunSummary::to_json() const {
  nlohmann::json j = {{"run_dir", run_dir},
                      {"status", status},
                      {"graph", graph},
                      {"graph_path", graph_path},
                      {"run_id", run_id},
                      {"started", started},
                      {"duration_ms", duration_ms},
                      {"node", node},
                      {"completed_nodes", completed_nodes},
                      {"completed_statuses", completed_statuses},
                      {"usage", usage}};
  j["workspace"] = workspace.is_object() ? workspace : nlohmann::json{{"mode", "in-place"}};
  j["changed_files"] = changed_files ? nlohmann::json(*changed_files) : nlohmann::json();
  j["pid"] = pid ? nlohmann::json(*pid) : nlohmann::json();
  j["reason"] = reason.empty() ? nlohmann::json() : nlohmann::json(reason);
  j["error"] = error.empty() ? nlohmann::json() : nlohmann::json(error);
  return j;
}

RunSummary summarize_run(const std::string& run_dir, std::int64_t now_ms, RunningDetail running) {
  RunSummary s;
  s.run_dir = run_dir;
  Checkpoint cp;
  try {
    Manifest m = read_manifest(run_dir);
    s.graph = m.name;
    s.graph_path = m.graph_path;
    s.run_id = m.run_id;
    s.started = m.start_time;
    s.started_ms = parse_utc(m.start_time);
    s.workspace = m.workspace;
    if (running == RunningDetail::kBrief) {
      if (auto pid = run_lock_holder(run_dir)) return brief_running(std::move(s), *pid, now_ms);
    }
    cp = load_checkpoint(run_dir);
  } catch (const std::exception& e) {
    s.status = "unreadable";
    s.error = e.what();
    return s;
  }
  s.completed_nodes = cp.completed_nodes;
  s.completed_statuses = cp.completed_statuses;
  s.completed_commits = cp.completed_commits;
  s.usage = cp.usage.is_object() ? cp.usage : nlohmann::json::object();
  s.pid = run_lock_holder(run_dir);
  const bool finished = cp.state == "success" || cp.state == "fail";
  std::int64_t last_ms = cp.timestamp_ms;
  s.node = finished ? cp.current_node : cp.next_node;
  if (s.pid) {
    s.status = "running";
  } else if (finished) {
    s.status = cp.state == "success" ? "completed" : "failed";
    if (cp.final_outcome.is_object()) s.reason = cp.final_outcome.value("failure_reason", std::string());
  } else {
    const nlohmann::json event = last_event(run_dir);
    s.status = unfinished_status(run_dir, event, s.reason);
    // A run stopped mid-stage (cancelled, interrupted) lasted until its last event, which may be
    // long after its last checkpoint.
    if (event.is_object() && event.contains("ts") && event["ts"].is_string()) {
      last_ms = std::max(last_ms, parse_utc(event["ts"].get<std::string>()));
    }
    s.usage = stopped_run_usage(event, s.usage);
  }
  const std::int64_t end = s.status == "running" ? now_ms : last_ms;
  s.duration_ms = s.started_ms > 0 && end >= s.started_ms ? end - s.started_ms : 0;
  return s;
}

std::vector<RunSummary> list_runs(const std::string& logs_root, std::int64_t now_ms, RunningDetail running) {
  std::vector<RunSummary> runs;
  std::error_code ec;
  for (fs::directory_iterator it(logs_root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || !fs::exists(it->path() / "manifest.json", ec)) continue;
    if (it->path().filename().string().starts_with(".")) continue;  // a fork killed while assembled (run_fork.h)
    runs.push_back(summarize_run(it->path().string(), now_ms, running));
  }
  std::sort(runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) {
    if (a.started_ms != b.started_ms) return a.started_ms > b.started_ms;
    return a.run_dir < b.run_dir;
  });
  return runs;
}

}  // namespace attractor
