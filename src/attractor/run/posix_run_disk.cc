#include "attractor/run/posix_run_disk.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "attractor/base/input_file.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

/// Writes all of `data` to `fd`; 0 or the errno of the failed write.
int write_all(int fd, std::string_view data);

/// Appends whole records: a write that fails part-way (a full disk) is cut back to where the
/// record began, so the file never ends in a torn line the process wrote.
class RecordAppendFile : public AppendFile {
 public:
  explicit RecordAppendFile(int fd) : fd_(fd) {}
  ~RecordAppendFile() override { ::close(fd_); }
  RecordAppendFile(const RecordAppendFile&) = delete;
  RecordAppendFile& operator=(const RecordAppendFile&) = delete;

  void append(std::string_view data) override {
    struct stat st;
    const bool sized = ::fstat(fd_, &st) == 0;
    if (write_all(fd_, data) != 0 && sized) {
      if (::ftruncate(fd_, st.st_size) != 0) return;  // nothing more to do: the next writer cuts it
    }
  }

 private:
  int fd_;
};

/// The file opened at its first append (O_APPEND, created when missing) and kept open; a file
/// that did not exist then gets its directory synced after that append, so its name is durable.
class PosixSyncedAppendFile : public SyncedAppendFile {
 public:
  explicit PosixSyncedAppendFile(std::string path) : path_(std::move(path)) {}
  ~PosixSyncedAppendFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  PosixSyncedAppendFile(const PosixSyncedAppendFile&) = delete;
  PosixSyncedAppendFile& operator=(const PosixSyncedAppendFile&) = delete;

  void append(std::string_view data) override {
    bool is_new = false;
    if (fd_ < 0) {
      struct stat st;
      is_new = ::stat(path_.c_str(), &st) != 0;
      fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
      if (fd_ < 0) throw std::runtime_error("cannot append " + path_ + ": " + std::strerror(errno));
    }
    if (int err = write_all(fd_, data); err != 0)
      throw std::runtime_error("cannot append " + path_ + ": " + std::strerror(err));
    if (::fdatasync(fd_) != 0) throw std::runtime_error("cannot sync " + path_ + ": " + std::strerror(errno));
    if (is_new) sync_parent();
  }

 private:
  void sync_parent() const {
    std::string dir = fs::path(path_).parent_path().string();
    int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }

  const std::string path_;
  int fd_ = -1;
};

/// Writes all of `data` to `fd`; 0 or the errno of the failed write.
int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace

std::error_code PosixRunDisk::make_directories(const std::string& path) {
  bool created = false;
  return make_directories(path, created);
}

std::error_code PosixRunDisk::make_directories(const std::string& path, bool& created) {
  created = true;
  if (::mkdir(path.c_str(), 0777) == 0) return {};  // the usual case: one system call
  struct stat st;
  if (errno == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {  // a revisit
    created = false;
    return {};
  }
  std::error_code ec;
  fs::create_directories(path, ec);
  return ec;
}

void PosixRunDisk::write_file(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  int err = write_all(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
}

void PosixRunDisk::write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                                     const std::function<void()>& written, DirectorySync sync) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  std::vector<iovec> batch;
  std::size_t next = 0;    // first part not completely written
  std::size_t offset = 0;  // bytes of parts[next] already written
  while (next < parts.size()) {
    batch.clear();
    for (std::size_t i = next; i < parts.size() && batch.size() < IOV_MAX; ++i) {
      std::string_view part = i == next ? parts[i].substr(offset) : parts[i];
      if (!part.empty()) batch.push_back({const_cast<char*>(part.data()), part.size()});
    }
    if (batch.empty()) break;
    ssize_t n = ::writev(fd, batch.data(), static_cast<int>(batch.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());  // a full disk must not leave a half-written temp file behind
      throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
    }
    std::size_t done = static_cast<std::size_t>(n);
    while (next < parts.size() && done >= parts[next].size() - offset) {
      done -= parts[next].size() - offset;
      offset = 0;
      ++next;
    }
    offset += done;
  }
  if (written) written();
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot sync " + tmp + ": " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + tmp + ": " + std::strerror(errno));
  }
  if (sync == DirectorySync::kLater) return;
  std::string dir = fs::path(path).parent_path().string();
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void PosixRunDisk::append_synced(const std::string& path, std::string_view data) {
  PosixSyncedAppendFile(path).append(data);
}

std::unique_ptr<SyncedAppendFile> PosixRunDisk::open_synced_append(const std::string& path) {
  return std::make_unique<PosixSyncedAppendFile>(path);
}

std::shared_ptr<AppendFile> PosixRunDisk::open_append(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr;
  return std::make_shared<RecordAppendFile>(fd);
}

std::string PosixRunDisk::cut_torn_tail(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st;
  std::string torn;
  std::string tail;  // the bytes after the last newline, read backwards block by block
  std::uint64_t keep = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    std::uint64_t end = static_cast<std::uint64_t>(st.st_size);
    char block[65536];
    bool found = false;
    while (end > 0 && !found) {
      const std::uint64_t begin = end > sizeof block ? end - sizeof block : 0;
      const ssize_t n = ::pread(fd, block, end - begin, static_cast<off_t>(begin));
      if (n != static_cast<ssize_t>(end - begin)) {
        ::close(fd);
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(n < 0 ? errno : EIO));
      }
      std::string_view view(block, static_cast<std::size_t>(n));
      const std::size_t nl = view.rfind('\n');
      found = nl != std::string_view::npos;
      const std::size_t from = found ? nl + 1 : 0;
      tail.insert(0, view.substr(from));
      keep = begin + from;
      end = begin;
    }
  }
  if (!tail.empty()) {
    torn = torn_tail_path(path, keep);
    try {
      write_file(torn, tail);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::ftruncate(fd, static_cast<off_t>(keep)) != 0 || ::fdatasync(fd) != 0) {
      const int err = errno;
      ::close(fd);
      throw std::runtime_error("cannot truncate " + path + ": " + std::strerror(err));
    }
  }
  ::close(fd);
  return torn;
}

void PosixRunDisk::remove_file(const std::string& path) { std::remove(path.c_str()); }

void PosixRunDisk::reserve_file(const std::string& path, std::size_t bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot reserve " + path + ": " + std::strerror(errno));
  const int err = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  ::close(fd);
  if (err != 0) {
    ::unlink(path.c_str());
    throw std::runtime_error("cannot reserve " + path + ": " + std::strerror(err));
  }
}

std::string PosixRunDisk::read_file(const std::string& path) {
  // Opened without blocking and checked to be a regular file first: a FIFO put where a checkpoint
  // or journal belongs would otherwise block the reader forever.
  constexpr InputFileRules kRunFileRules{"a run-directory file", /*allow_empty=*/true, /*allow_binary=*/true};
  InputFile file = read_input_file(path, kRunFileRules);
  if (!file.ok()) throw std::runtime_error("cannot read " + file.message);
  return std::move(file.text);
}

bool PosixRunDisk::exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool PosixRunDisk::is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> PosixRunDisk::list_directory(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return names;
  while (const dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

void PosixRunDisk::rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + from + " to " + to + ": " + std::strerror(errno));
  }
}

RunDisk& posix_run_disk() {
  static PosixRunDisk disk;
  return disk;
}

}  // namespace attractor
