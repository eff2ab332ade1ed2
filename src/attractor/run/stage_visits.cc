#include "attractor/run/stage_visits.h"

#include <filesystem>
#include <stdexcept>
#include <vector>

namespace attractor {

namespace fs = std::filesystem;

std::string stage_visit_dir(const std::string& stage_dir, std::int64_t visit) {
  return (fs::path(stage_dir) / kStageVisitsFolder / std::to_string(visit)).string();
}

void archive_stage_visit(RunDisk& disk, const std::string& stage_dir, std::int64_t visit) {
  const std::string done = stage_visit_dir(stage_dir, visit);
  if (disk.exists(done) || !disk.is_directory(stage_dir)) return;
  std::vector<std::string> entries = disk.list_directory(stage_dir);
  std::erase(entries, std::string(kStageVisitsFolder));
  const std::string partial = (fs::path(stage_dir) / kStageVisitsFolder / ("." + std::to_string(visit) + ".partial")).string();
  if (entries.empty() && !disk.exists(partial)) return;
  if (std::error_code ec = disk.make_directories(partial)) {
    throw std::runtime_error("cannot create " + partial + ": " + ec.message());
  }
  for (const std::string& name : entries) {
    disk.rename((fs::path(stage_dir) / name).string(), (fs::path(partial) / name).string());
  }
  disk.rename(partial, done);
}

}  // namespace attractor
