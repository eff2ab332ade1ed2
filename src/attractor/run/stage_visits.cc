#include "attractor/run/stage_visits.h"

#include <stdexcept>
#include <vector>

namespace attractor {

namespace {

/// `dir/name` (run directory paths are plain strings; no std::filesystem on this per-visit path).
std::string join(const std::string& dir, const std::string& name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir);
  if (!dir.empty() && dir.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

}  // namespace

std::string stage_visit_dir(const std::string& stage_dir, std::int64_t visit) {
  return join(join(stage_dir, kStageVisitsFolder), std::to_string(visit));
}

VisitArchive archive_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit) {
  const std::string visits = join(stage_dir, kStageVisitsFolder);
  const std::string done = join(visits, std::to_string(visit));
  if (disk.exists(done)) return VisitArchive::kKept;
  std::vector<std::string> entries = disk.list_directory(stage_dir);  // empty when stage_dir is missing
  std::erase(entries, std::string(kStageVisitsFolder));
  std::string partial_name(".");
  partial_name.append(std::to_string(visit)).append(".partial");
  const std::string partial = join(visits, partial_name);
  if (entries.empty() && !disk.exists(partial)) return VisitArchive::kNothing;
  if (std::error_code ec = disk.make_directories(partial)) {
    throw std::runtime_error("cannot create " + partial + ": " + ec.message());
  }
  for (const std::string& name : entries) disk.rename(join(stage_dir, name), join(partial, name));
  disk.rename(partial, done);
  return VisitArchive::kMoved;
}

void open_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit) {
  const VisitArchive archived = visit > 1 ? archive_stage_visit(disk, stage_dir, visit - 1) : VisitArchive::kNothing;
  if (archived == VisitArchive::kMoved) return;
  bool created = false;
  if (archived == VisitArchive::kNothing) {
    if (std::error_code ec = disk.make_directories(stage_dir, created)) {
      throw std::runtime_error("cannot create " + stage_dir + ": " + ec.message());
    }
  }
  if (!created) disk.remove_file(join(stage_dir, kStageStatusFile));
}

}  // namespace attractor
