#include "support/memory_run_disk.h"

#include <filesystem>
#include <stdexcept>
#include <vector>

namespace attractor {

namespace fs = std::filesystem;

namespace {

std::string normal(const std::string& path) {
  std::string p = fs::path(path).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p.empty() ? "." : p;
}

std::string parent_of(const std::string& normalized) {
  std::string parent = fs::path(normalized).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

class MemoryRunDisk::Appender : public AppendFile {
 public:
  Appender(MemoryRunDisk& disk, std::string path) : disk_(disk), path_(std::move(path)) {}
  void append(std::string_view data) override { disk_.append(path_, data); }

 private:
  MemoryRunDisk& disk_;
  std::string path_;
};

void MemoryRunDisk::require_parent_locked(const std::string& path, const std::string& shown) const {
  const std::string parent = parent_of(path);
  if (parent == "." || parent == "/" || directories_.count(parent)) return;
  throw std::runtime_error("cannot write " + shown + ": No such file or directory");
}

std::error_code MemoryRunDisk::make_directories(const std::string& path) {
  std::vector<std::string> chain;
  for (fs::path p = normal(path); !p.empty() && p != p.root_path() && p != "."; p = p.parent_path()) {
    chain.push_back(p.string());
  }
  std::lock_guard lock(mutex_);
  for (const std::string& dir : chain) {
    if (files_.count(dir)) return std::make_error_code(std::errc::file_exists);
  }
  directories_.insert(chain.begin(), chain.end());
  return {};
}

void MemoryRunDisk::write_file(const std::string& path, std::string_view content) {
  const std::string key = normal(path);
  std::lock_guard lock(mutex_);
  require_parent_locked(key, path);
  files_[key] = std::string(content);
}

void MemoryRunDisk::write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                                      const std::function<void()>& written, DirectorySync) {
  const std::string key = normal(path);
  std::string content;
  for (std::string_view part : parts) content += part;
  {
    std::lock_guard lock(mutex_);
    require_parent_locked(key, path + ".tmp");
  }
  if (written) written();
  std::lock_guard lock(mutex_);
  files_[key] = std::move(content);
}

std::shared_ptr<AppendFile> MemoryRunDisk::open_append(const std::string& path) {
  const std::string key = normal(path);
  std::lock_guard lock(mutex_);
  const std::string parent = parent_of(key);
  if (parent != "." && parent != "/" && !directories_.count(parent)) return nullptr;
  files_[key];
  return std::make_shared<Appender>(*this, key);
}

void MemoryRunDisk::append(const std::string& path, std::string_view data) {
  std::lock_guard lock(mutex_);
  files_[path] += data;
}

void MemoryRunDisk::append_synced(const std::string& path, std::string_view data) {
  const std::string key = normal(path);
  std::lock_guard lock(mutex_);
  const std::string parent = parent_of(key);
  if (parent != "." && parent != "/" && !directories_.count(parent)) {
    throw std::runtime_error("cannot append " + path + ": No such file or directory");
  }
  files_[key] += data;
}

void MemoryRunDisk::remove_file(const std::string& path) {
  std::lock_guard lock(mutex_);
  files_.erase(normal(path));
}

std::string MemoryRunDisk::read_file(const std::string& path) {
  std::lock_guard lock(mutex_);
  auto it = files_.find(normal(path));
  if (it == files_.end()) throw std::runtime_error("cannot read " + path);
  return it->second;
}

bool MemoryRunDisk::exists(const std::string& path) {
  const std::string key = normal(path);
  std::lock_guard lock(mutex_);
  return files_.count(key) > 0 || directories_.count(key) > 0;
}

bool MemoryRunDisk::is_directory(const std::string& path) {
  const std::string key = normal(path);
  std::lock_guard lock(mutex_);
  return directories_.count(key) > 0;
}

std::vector<std::string> MemoryRunDisk::list_directory(const std::string& path) {
  const std::string key = normal(path);
  std::set<std::string> names;
  std::lock_guard lock(mutex_);
  auto collect = [&](const std::string& entry) {
    if (entry != key && parent_of(entry) == key) names.insert(fs::path(entry).filename().string());
  };
  for (const auto& [file, content] : files_) collect(file);
  for (const std::string& dir : directories_) collect(dir);
  return {names.begin(), names.end()};
}

void MemoryRunDisk::rename(const std::string& from, const std::string& to) {
  const std::string source = normal(from);
  const std::string target = normal(to);
  std::lock_guard lock(mutex_);
  const bool is_file = files_.count(source) > 0;
  if (!is_file && !directories_.count(source)) {
    throw std::runtime_error("cannot rename " + from + " to " + to + ": No such file or directory");
  }
  require_parent_locked(target, to);
  if (target.rfind(source + "/", 0) == 0) {
    throw std::runtime_error("cannot rename " + from + " to " + to + ": Invalid argument");
  }
  if (is_file) {
    files_[target] = std::move(files_[source]);
    files_.erase(source);
    return;
  }
  auto moved = [&](const std::string& p) { return target + p.substr(source.size()); };
  auto inside = [&](const std::string& p) { return p == source || p.rfind(source + "/", 0) == 0; };
  std::map<std::string, std::string> files;
  for (auto& [p, c] : files_) files[inside(p) ? moved(p) : p] = std::move(c);
  std::set<std::string> dirs;
  for (const std::string& d : directories_) dirs.insert(inside(d) ? moved(d) : d);
  files_ = std::move(files);
  directories_ = std::move(dirs);
}

std::map<std::string, std::string> MemoryRunDisk::files() const {
  std::lock_guard lock(mutex_);
  return files_;
}

std::set<std::string> MemoryRunDisk::directories() const {
  std::lock_guard lock(mutex_);
  return directories_;
}

}  // namespace attractor
