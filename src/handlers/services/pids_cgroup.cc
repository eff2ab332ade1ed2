#include "handlers/services/pids_cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace attractor {

namespace fs = std::filesystem;

namespace {

/// This process's cgroup path in the hierarchy whose /proc/self/cgroup line matches `controller`
/// ("pids" for v1, "" for the v2 line `0::PATH`).
std::optional<std::string> own_cgroup(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string names = line.substr(first + 1, second - first - 1);
    std::stringstream list(names);
    for (std::string name; std::getline(list, name, ',');) {
      if (name == controller) return line.substr(second + 1);
    }
    if (controller.empty() && names.empty()) return line.substr(second + 1);
  }
  return std::nullopt;
}

bool write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

/// Where new cgroups for this process go: v1's pids hierarchy, else v2's with pids delegated.
std::optional<fs::path> pids_parent(std::string& why) {
  std::error_code ec;
  if (fs::is_directory("/sys/fs/cgroup/pids", ec)) {
    if (auto own = own_cgroup("pids")) return fs::path("/sys/fs/cgroup/pids") / fs::path(*own).relative_path();
  }
  if (auto own = own_cgroup("")) {
    fs::path parent = fs::path("/sys/fs/cgroup") / fs::path(*own).relative_path();
    std::ifstream control(parent / "cgroup.subtree_control");
    std::string enabled;
    std::getline(control, enabled);
    if (enabled.find("pids") != std::string::npos) return parent;
  }
  why = "no pids cgroup controller is available to attractor";
  return std::nullopt;
}

}  // namespace

PidsCgroup::~PidsCgroup() {
  if (path_.empty()) return;
  for (int round = 0; round < 100; ++round) {
    std::ifstream procs(fs::path(path_) / "cgroup.procs");
    bool any = false;
    for (long pid; procs >> pid;) {
      any = true;
      ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
    if (!any && ::rmdir(path_.c_str()) == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool PidsCgroup::create(long max) {
  static std::atomic<unsigned> counter{0};
  std::optional<fs::path> parent = pids_parent(error_);
  if (!parent) return false;
  fs::path dir = *parent / ("attractor-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  if (::mkdir(dir.c_str(), 0755) != 0) {
    error_ = "cannot make cgroup " + dir.string() + ": " + std::strerror(errno);
    return false;
  }
  path_ = dir.string();
  if (!write_text(dir / "pids.max", std::to_string(max))) {
    error_ = "cannot set " + (dir / "pids.max").string();
    return false;
  }
  return true;
}

bool PidsCgroup::add(pid_t pid) {
  if (path_.empty()) return false;
  if (write_text(fs::path(path_) / "cgroup.procs", std::to_string(pid))) return true;
  error_ = "cannot move process " + std::to_string(pid) + " into " + path_;
  return false;
}

}  // namespace attractor
