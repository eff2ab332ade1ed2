#include "attractor/run/stage_visits.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "attractor/base/json_limits.h"

namespace attractor {

namespace {

/// `dir/name` (run directory paths are plain strings; no std::filesystem on this per-visit path).
std::string join(const std::string& dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir);
  if (!dir.empty() && dir.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

/// The folder inside the stage folder where builds before `{node}.visits/` kept earlier visits.
constexpr std::string_view kNestedVisitsFolder = "visits";

/// Creates `path` (and its parents); true when it did not exist. Throws "cannot create PATH: REASON".
bool make_directory(RunDisk& disk, const std::string& path) {
  bool created = false;
  if (std::error_code ec = disk.make_directories(path, created)) {
    throw std::runtime_error("cannot create " + path + ": " + ec.message());
  }
  return created;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// `N` or `.N.partial`: the names the nested layout's archive made.
bool is_nested_visit_name(std::string_view name) {
  if (all_digits(name)) return true;
  constexpr std::string_view kPartial = ".partial";
  return name.size() > kPartial.size() + 1 && name.front() == '.' && name.ends_with(kPartial) &&
         all_digits(name.substr(1, name.size() - 1 - kPartial.size()));
}

}  // namespace

std::string stage_visits_folder(const std::string& stage_dir) {
  std::string out = stage_dir;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out.append(kStageVisitsSuffix);
}

std::string stage_visit_dir(const std::string& stage_dir, std::int64_t visit) {
  return join(stage_visits_folder(stage_dir), std::to_string(visit));
}

VisitArchive archive_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit) {
  const std::string visits = stage_visits_folder(stage_dir);
  const std::string done = join(visits, std::to_string(visit));
  if (disk.exists(done)) return VisitArchive::kKept;
  if (!disk.is_directory(stage_dir)) return VisitArchive::kNothing;
  if (visit == 1 || !disk.exists(visits)) make_directory(disk, visits);
  disk.rename(stage_dir, done);
  return VisitArchive::kMoved;
}

void open_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit) {
  if (visit > 1) archive_stage_visit(disk, stage_dir, visit - 1);
  if (make_directory(disk, stage_dir)) return;
  settle_interrupted_attempts(disk, stage_dir);
  disk.remove_file(join(stage_dir, kStageStatusFile));
}

std::string open_attempt_folder(RunDisk& disk, const std::string& stage_dir, std::int64_t& last) {
  for (std::int64_t k = last + 1;; ++k) {
    std::string path = join(stage_dir, kAttemptFolderPrefix + std::to_string(k));
    if (make_directory(disk, path)) {
      last = k;
      return path;
    }
  }
}

void record_attempt_process(RunDisk& disk, const std::string& attempt_dir, const ProcessGroupRecord& record) {
  disk.write_file(join(attempt_dir, "process-" + std::to_string(record.pgid) + ".json"),
                  record.to_json().dump() + "\n");
}

void settle_interrupted_attempts(RunDisk& disk, const std::string& stage_dir) {
  constexpr int kWaitMs = 5000;
  for (const std::string& name : disk.list_directory(stage_dir)) {
    const std::string attempt = join(stage_dir, name);
    if (!name.starts_with(kAttemptFolderPrefix) || !disk.is_directory(attempt)) continue;
    for (const std::string& file : disk.list_directory(attempt)) {
      if (!file.starts_with("process-") || !file.ends_with(".json")) continue;
      ProcessGroupRecord record;
      try {
        record = ProcessGroupRecord::from_json(parse_json_limited(disk.read_file(join(attempt, file)), file));
      } catch (const std::exception&) {
        continue;
      }
      if (!stop_process_group(record, kWaitMs)) {
        throw std::runtime_error("process group " + std::to_string(record.pgid) + " of the interrupted attempt " +
                                 attempt + " is still running " + std::to_string(kWaitMs) +
                                 " ms after SIGKILL; stop it before resuming");
      }
    }
  }
}

bool adopt_nested_visits(RunDisk& disk, const std::string& stage_dir) {
  const std::string nested = join(stage_dir, kNestedVisitsFolder);
  const std::string visits = stage_visits_folder(stage_dir);
  if (!disk.is_directory(nested) || disk.exists(visits)) return false;
  const std::vector<std::string> names = disk.list_directory(nested);
  if (!std::all_of(names.begin(), names.end(), [](const std::string& n) { return is_nested_visit_name(n); })) {
    return false;
  }
  disk.rename(nested, visits);
  return true;
}

}  // namespace attractor
