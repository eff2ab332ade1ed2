#include "attractor/workspace/libgit2/change_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace attractor {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kDirectoryEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
                                           IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

std::string child(const std::string& dir, const char* name) { return dir.empty() ? name : dir + "/" + name; }

}  // namespace

ChangeWatch::ChangeWatch(std::string root) : root_(std::move(root)) { rewatch(); }

ChangeWatch::~ChangeWatch() {
  if (fd_ >= 0) ::close(fd_);
}

void ChangeWatch::rewatch() {
  if (fd_ >= 0) ::close(fd_);
  dirs_.clear();
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ >= 0) watch_tree("", nullptr);
}

void ChangeWatch::watch_tree(const std::string& relative, std::set<std::string>* found) {
  if (fd_ < 0) return;
  const fs::path dir = relative.empty() ? fs::path(root_) : fs::path(root_) / relative;
  const int wd = inotify_add_watch(fd_, dir.c_str(), kDirectoryEvents);
  if (wd < 0) {
    if (relative.empty() || (errno != ENOENT && errno != ENOTDIR)) {  // no root, or out of watches
      ::close(fd_);
      fd_ = -1;
    }
    return;
  }
  dirs_[wd] = relative;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (relative.empty() && name == ".git") continue;
    const std::string path = child(relative, name.c_str());
    std::error_code type_ec;
    if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) {
      watch_tree(path, found);
    } else if (found) {
      found->insert(path);
    }
  }
}

void ChangeWatch::read_events(Changes& changes) {
  alignas(inotify_event) std::array<char, 64 * 1024> buffer;
  while (fd_ >= 0) {
    const ssize_t n = ::read(fd_, buffer.data(), buffer.size());
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return;
    }
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buffer.data() + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      if (e->mask & IN_Q_OVERFLOW) {
        changes.everything = true;
        continue;
      }
      auto dir = dirs_.find(e->wd);
      if (dir == dirs_.end()) continue;
      if (e->mask & IN_IGNORED) {
        dirs_.erase(dir);
        continue;
      }
      if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        changes.everything = true;
        continue;
      }
      if (e->len == 0) continue;
      if (dir->second.empty() && std::strcmp(e->name, ".git") == 0) continue;
      const std::string path = child(dir->second, e->name);
      if (e->mask & IN_ISDIR) {
        if (e->mask & (IN_CREATE | IN_MOVED_TO)) watch_tree(path, &changes.paths);  // files made before the watch
        if (e->mask & (IN_DELETE | IN_MOVED_FROM)) changes.everything = true;
        continue;
      }
      changes.paths.insert(path);
    }
  }
}

ChangeWatch::Changes ChangeWatch::take() {
  Changes changes;
  read_events(changes);
  if (changes.everything) rewatch();  // watches named after moved directories would lie
  if (fd_ < 0 || std::exchange(everything_, false)) changes.everything = true;
  if (changes.everything) changes.paths.clear();
  return changes;
}

void ChangeWatch::forget() {
  Changes dropped;
  read_events(dropped);
  if (dropped.everything) rewatch();
  everything_ = false;
}

}  // namespace attractor
