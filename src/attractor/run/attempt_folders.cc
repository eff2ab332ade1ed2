#include "attractor/run/attempt_folders.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "attractor/run/stage_visits.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

std::string in_folder(const std::string& folder, const std::string& name) { return (fs::path(folder) / name).string(); }

}  // namespace

AttemptFolders::AttemptFolders(WriteBehind& writer, std::string stage_dir, bool numbered_here)
    : writer_(writer), stage_dir_(std::move(stage_dir)), numbered_here_(numbered_here) {}

void AttemptFolders::begin(std::int64_t attempt) {
  std::lock_guard lock(mutex_);
  attempt_ = attempt;
  current_.clear();
  if (unfiled_.empty()) return;
  const std::string earlier = make_folder();
  for (const std::string& name : unfiled_) {
    writer_.enqueue([&disk = writer_.disk(), from = in_folder(stage_dir_, name), to = in_folder(earlier, name)] {
      if (disk.exists(from)) disk.rename(from, to);
    });
  }
  unfiled_.clear();
}

std::string AttemptFolders::folder() {
  std::lock_guard lock(mutex_);
  if (!current_.empty()) return current_;
  current_ = make_folder();
  for (const std::string& name : unfiled_) {
    writer_.enqueue([&disk = writer_.disk(), from = in_folder(stage_dir_, name), to = in_folder(current_, name)] {
      if (disk.exists(from)) disk.write_file(to, disk.read_file(from));
    });
  }
  unfiled_.clear();
  return current_;
}

void AttemptFolders::keep(const std::string& name, std::string content) {
  const bool defer = [&] {
    std::lock_guard lock(mutex_);
    return current_.empty() && attempt_ <= 1;
  }();
  if (defer) {
    writer_.write_file(in_folder(stage_dir_, name), std::move(content));
    std::lock_guard lock(mutex_);
    if (std::find(unfiled_.begin(), unfiled_.end(), name) == unfiled_.end()) unfiled_.push_back(name);
    return;
  }
  const std::string own = folder();
  writer_.write_file(in_folder(stage_dir_, name), content);
  writer_.write_file(in_folder(own, name), std::move(content));
}

bool AttemptFolders::has_folder() const {
  std::lock_guard lock(mutex_);
  return !current_.empty();
}

bool AttemptFolders::looked_at_disk() const {
  std::lock_guard lock(mutex_);
  return !current_.empty() && !numbered_here_;
}

std::string AttemptFolders::make_folder() {
  if (!numbered_here_) {
    writer_.flush();
    return open_attempt_folder(writer_.disk(), stage_dir_, last_);
  }
  std::string path = in_folder(stage_dir_, kAttemptFolderPrefix + std::to_string(++last_));
  writer_.make_directories(path);
  return path;
}

}  // namespace attractor
