#include "attractor/run/artifact_store.h"

#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "attractor/base/json_limits.h"
#include "attractor/base/clock.h"

namespace attractor {

namespace fs = std::filesystem;

ArtifactStore::ArtifactStore(std::string base_dir, std::int64_t threshold, RunDisk& disk)
    : base_dir_(std::move(base_dir)), threshold_(threshold), disk_(disk) {}

ArtifactInfo ArtifactStore::store(const std::string& id, const std::string& name, const nlohmann::json& data) {
  std::string text = data.dump();
  ArtifactInfo info;
  info.id = id;
  info.name = name;
  info.size_bytes = static_cast<std::int64_t>(text.size());
  info.stored_at = format_iso8601(system_clock().now_ms());
  info.is_file_backed = info.size_bytes > threshold_ && !base_dir_.empty();
  Entry entry{info, data};
  if (info.is_file_backed) {
    fs::path dir = fs::path(base_dir_) / "artifacts";
    if (std::error_code ec = disk_.make_directories(dir.string())) {
      throw fs::filesystem_error("cannot create directories", dir, ec);
    }
    fs::path file = dir / (id + ".json");
    disk_.write_file(file.string(), text);
    entry.data = file.string();
  }
  std::unique_lock lock(mutex_);
  entries_.insert_or_assign(id, std::move(entry));
  return info;
}

nlohmann::json ArtifactStore::retrieve(const std::string& id) const {
  Entry entry;
  {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end()) throw std::out_of_range("artifact not found: " + id);
    entry = it->second;
  }
  if (!entry.info.is_file_backed) return entry.data;
  const std::string path = entry.data.get<std::string>();
  return parse_json_limited(disk_.read_file(path), path);
}

bool ArtifactStore::has(const std::string& id) const {
  std::shared_lock lock(mutex_);
  return entries_.count(id) > 0;
}

std::vector<ArtifactInfo> ArtifactStore::list() const {
  std::shared_lock lock(mutex_);
  std::vector<ArtifactInfo> out;
  for (const auto& [id, e] : entries_) out.push_back(e.info);
  return out;
}

void ArtifactStore::remove(const std::string& id) {
  std::unique_lock lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second.info.is_file_backed) disk_.remove_file(it->second.data.get<std::string>());
  entries_.erase(it);
}

void ArtifactStore::clear() {
  std::vector<std::string> ids;
  {
    std::shared_lock lock(mutex_);
    for (const auto& [id, e] : entries_) ids.push_back(id);
  }
  for (const auto& id : ids) remove(id);
}

}  // namespace attractor
