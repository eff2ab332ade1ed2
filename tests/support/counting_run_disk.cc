#include "support/counting_run_disk.h"

#include <filesystem>

namespace attractor::testing {

namespace {

std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().string(); }

}  // namespace

int CountingRunDisk::reads_of(const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto it = reads_.find(normal(path));
  return it == reads_.end() ? 0 : it->second;
}

std::map<std::string, int> CountingRunDisk::reads() const {
  std::lock_guard lock(mutex_);
  return reads_;
}

std::string CountingRunDisk::read_file(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    ++reads_[normal(path)];
  }
  return inner_.read_file(path);
}

}  // namespace attractor::testing
