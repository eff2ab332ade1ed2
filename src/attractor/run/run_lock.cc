#include "attractor/run/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace attractor {

namespace {

std::string lock_path(const std::string& run_dir) { return (std::filesystem::path(run_dir) / kRunLockFile).string(); }

long pid_in(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  return n > 0 ? std::strtol(buf, nullptr, 10) : 0;
}

/// Writes this process's pid as the whole content of `fd`. A new file is never truncated: on ext4
/// a truncation to zero makes the file's close write it out (auto_da_alloc), which cost a short
/// run's exit about 0.1 ms; only a longer line left by an earlier holder is cut.
bool write_pid(int fd) {
  const std::string pid = std::to_string(static_cast<long>(::getpid())) + "\n";
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  if (::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) return false;
  return st.st_size <= static_cast<off_t>(pid.size()) || ::ftruncate(fd, static_cast<off_t>(pid.size())) == 0;
}

}  // namespace

RunLock::RunLock(const std::string& run_dir) : path_(lock_path(run_dir)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot create " + path_ + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    long holder = pid_in(fd_);
    ::close(fd_);
    fd_ = -1;
    throw RunLockBusy(run_dir + " is being run by process " + std::to_string(holder));
  }
  if (!write_pid(fd_)) {
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
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) holder = pid_in(fd);
  ::close(fd);
  return holder;
}

}  // namespace attractor
