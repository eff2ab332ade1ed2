#include "attractor/run/run_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "attractor/base/supervised_process.h"

namespace attractor {

namespace {

std::string lock_path(const std::string& run_dir) { return (std::filesystem::path(run_dir) / kRunLockFile).string(); }

/// Who wrote a lock file: `PID START_TICKS` (older files: `PID`).
struct Owner {
  long pid = 0;
  unsigned long long start_ticks = 0;
};

Owner owner_in(int fd) {
  char buf[64] = {};
  ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  Owner o;
  if (n <= 0) return o;
  char* end = nullptr;
  o.pid = std::strtol(buf, &end, 10);
  o.start_ticks = std::strtoull(end, nullptr, 10);
  if (o.pid > (1L << 22)) o.pid = 0;  // beyond any pid_max: not a pid, the owner is unknown
  return o;
}

/// False only when the owner is known to be gone: no such process, or its pid now belongs to a
/// process that started at another time. An empty file (a holder about to write) counts as alive.
bool owner_alive(const Owner& o) {
  if (o.pid <= 0) return true;
  if (::kill(static_cast<pid_t>(o.pid), 0) != 0 && errno == ESRCH) return false;
  if (o.start_ticks == 0) return true;
  std::optional<ProcessGroupRecord> now = process_group_record(static_cast<pid_t>(o.pid));
  return now && now->start_ticks == o.start_ticks;
}

/// Writes `PID START_TICKS` of this process as the whole content of `fd`. A new file is never
/// truncated: on ext4 a truncation to zero makes the file's close write it out (auto_da_alloc),
/// which cost a short run's exit about 0.1 ms; only a longer line left by an earlier holder is cut.
bool write_owner(int fd) {
  std::optional<ProcessGroupRecord> self = process_group_record(::getpid());
  const std::string line = std::to_string(static_cast<long>(::getpid())) + " " +
                           std::to_string(self ? self->start_ticks : 0) + "\n";
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  if (::pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) return false;
  return st.st_size <= static_cast<off_t>(line.size()) || ::ftruncate(fd, static_cast<off_t>(line.size())) == 0;
}

/// True when `path` still names the file open as `fd` (a takeover may have replaced it).
bool still_named(int fd, const std::string& path) {
  struct stat open_st {
  }, path_st{};
  return ::fstat(fd, &open_st) == 0 && ::stat(path.c_str(), &path_st) == 0 && open_st.st_ino == path_st.st_ino &&
         open_st.st_dev == path_st.st_dev;
}

/// Opens `path` and tries to lock it once: the descriptor when locked (and still named `path`),
/// -1 with `owner` set when someone else holds it, -2 when the file was replaced meanwhile.
int try_take_lock(const std::string& path, Owner& owner) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    if (still_named(fd, path)) return fd;
    ::close(fd);
    return -2;
  }
  owner = owner_in(fd);
  ::close(fd);
  return -1;
}

/// Holds flock on the run directory itself while a stale lock file is replaced, so two
/// processes taking over at once cannot both succeed.
class DirectoryGuard {
 public:
  explicit DirectoryGuard(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~DirectoryGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  DirectoryGuard(const DirectoryGuard&) = delete;
  DirectoryGuard& operator=(const DirectoryGuard&) = delete;

 private:
  int fd_;
};

/// A lock file still held although its owner is gone (a descendant of the dead owner has the open
/// file): replaces the file by a new one and locks that. -1 with `owner` set if a live owner
/// appeared meanwhile.
int take_over(const std::string& run_dir, const std::string& path, Owner& owner) {
  DirectoryGuard guard(run_dir);
  int fd = try_take_lock(path, owner);
  if (fd >= 0 || (fd == -1 && owner_alive(owner))) return fd;
  ::unlink(path.c_str());
  fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
  }
  return fd;
}

}  // namespace

RunLock::RunLock(const std::string& run_dir) : path_(lock_path(run_dir)) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStaleLockWaitMs);
  Owner owner;
  for (;;) {
    fd_ = try_take_lock(path_, owner);
    if (fd_ >= 0) break;
    if (fd_ == -2) continue;
    if (owner_alive(owner)) throw RunLockBusy(run_dir + " is being run by process " + std::to_string(owner.pid));
    if (std::chrono::steady_clock::now() >= deadline) {
      fd_ = take_over(run_dir, path_, owner);
      if (fd_ >= 0) break;
      throw RunLockBusy(run_dir + " is being run by process " + std::to_string(owner.pid));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!write_owner(fd_)) {
    ::unlink(path_.c_str());
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
  }
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

std::optional<long> run_lock_holder(const std::string& run_dir) {
  int fd = ::open(lock_path(run_dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<long> holder;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    Owner owner = owner_in(fd);
    if (owner_alive(owner)) holder = owner.pid;
  }
  ::close(fd);
  return holder;
}

}  // namespace attractor
