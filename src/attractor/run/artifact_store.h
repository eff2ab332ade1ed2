#pragma once
/// \file
/// Named storage for large stage outputs (spec §5.5). Values above the file-backing threshold
/// (100 KB by default) are written to `{run_dir}/artifacts/{id}.json` and read back on demand.

#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/run/posix_run_disk.h"

namespace attractor {

struct ArtifactInfo {
  std::string id;
  std::string name;
  std::int64_t size_bytes = 0;
  std::string stored_at;  ///< ISO-8601 UTC
  bool is_file_backed = false;
};

/// Thread-safe artifact store.
class ArtifactStore {
 public:
  static constexpr std::int64_t kDefaultThreshold = 100 * 1024;

  /// `base_dir` "" keeps everything in memory; files are written through `disk` (which must
  /// outlive the store).
  explicit ArtifactStore(std::string base_dir = "", std::int64_t threshold = kDefaultThreshold,
                         RunDisk& disk = posix_run_disk());

  /// Size is the byte length of the compact JSON serialization.
  ArtifactInfo store(const std::string& id, const std::string& name, const nlohmann::json& data);
  /// Throws std::out_of_range ("artifact not found") for an unknown id.
  nlohmann::json retrieve(const std::string& id) const;
  bool has(const std::string& id) const;
  std::vector<ArtifactInfo> list() const;
  void remove(const std::string& id);
  void clear();

 private:
  struct Entry {
    ArtifactInfo info;
    nlohmann::json data;  ///< in-memory value, or the file path when file-backed
  };
  std::string base_dir_;
  std::int64_t threshold_;
  RunDisk& disk_;
  mutable std::shared_mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace attractor
