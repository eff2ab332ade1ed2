#include "attractor/base/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "attractor/base/utf8.h"

namespace attractor {

namespace {

InputFile failed(InputFileProblem problem, std::string message) {
  InputFile f;
  f.problem = problem;
  f.message = std::move(message);
  return f;
}

std::string expected_suffix(const InputFileRules& rules) { return fmt::format(" (expected {})", rules.expected); }

/// `size` is the file's size when known (a regular file), else 0 (a pipe read past the limit).
InputFile too_large(const std::string& shown, std::size_t size, const InputFileRules& rules) {
  if (size == 0) {
    return failed(InputFileProblem::kTooLarge,
                  fmt::format("{}: file is larger than the limit of {} bytes", shown, rules.max_bytes));
  }
  return failed(InputFileProblem::kTooLarge,
                fmt::format("{}: file is {} bytes, more than the limit of {} bytes", shown, size, rules.max_bytes));
}

/// Reads `fd` into `out` up to `limit` bytes; false (errno set) on a read error.
bool read_all(int fd, std::string& out, std::size_t limit) {
  char buffer[65536];
  while (out.size() < limit) {
    ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, limit - out.size()));
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

/// The binary-file problem of `text` under `rules`, located at its first bad byte; kNone if none.
InputFile binary_problem(const std::string& path, const std::string& text, const InputFileRules& rules) {
  if (rules.allow_binary) return {};
  const std::size_t nul = text.find('\0');
  const std::size_t invalid = find_invalid_utf8(text);
  if (nul == std::string::npos && invalid == std::string_view::npos) return {};
  const bool is_nul = nul != std::string::npos && (invalid == std::string_view::npos || nul <= invalid);
  const std::size_t offset = is_nul ? nul : invalid;
  const std::size_t newline = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  const std::size_t line_begin = newline == std::string::npos ? 0 : newline + 1;
  InputFile f;
  f.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(line_begin), '\n'));
  f.column = static_cast<int>(offset - line_begin) + 1;
  f.problem = is_nul ? InputFileProblem::kNulByte : InputFileProblem::kInvalidUtf8;
  std::string what = is_nul ? std::string("NUL byte")
                            : fmt::format("invalid UTF-8 byte 0x{:02x}", static_cast<unsigned char>(text[offset]));
  f.message = fmt::format("{}:{}:{}: binary file: {}{}", escape_control_bytes(path), f.line, f.column, what,
                          expected_suffix(rules));
  return f;
}

/// open_input_file, with the path as shown in messages and the fstat result.
int open_classified(const std::string& path, const std::string& shown, const InputFileRules& rules, struct stat& info,
                    InputFile& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int open_errno = errno;
    if (open_errno == ENOENT || open_errno == ENOTDIR) {
      problem = failed(InputFileProblem::kMissing, shown + ": no such file");
    } else if (open_errno == ENXIO && ::stat(path.c_str(), &info) == 0) {  // a socket
      problem = failed(InputFileProblem::kNotRegular, fmt::format("{}: not a regular file ({}; expected {})", shown,
                                                                  special_file_kind(info.st_mode), rules.expected));
    } else {
      problem = failed(InputFileProblem::kUnreadable,
                       fmt::format("{}: cannot read: {}", shown, std::strerror(open_errno)));
    }
    return -1;
  }
  if (::fstat(fd, &info) != 0) {
    problem = failed(InputFileProblem::kUnreadable, fmt::format("{}: cannot read: {}", shown, std::strerror(errno)));
  } else if (S_ISDIR(info.st_mode)) {
    problem = failed(InputFileProblem::kDirectory, shown + ": is a directory" + expected_suffix(rules));
  } else if (!S_ISREG(info.st_mode) && !(rules.allow_stream && (S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode)))) {
    problem = failed(InputFileProblem::kNotRegular, fmt::format("{}: not a regular file ({}; expected {})", shown,
                                                                special_file_kind(info.st_mode), rules.expected));
  } else if (S_ISREG(info.st_mode) && static_cast<std::size_t>(info.st_size) > rules.max_bytes) {
    problem = too_large(shown, static_cast<std::size_t>(info.st_size), rules);
  } else if (!S_ISREG(info.st_mode) && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
    problem = failed(InputFileProblem::kUnreadable, fmt::format("{}: cannot read: {}", shown, std::strerror(errno)));
  } else {
    return fd;
  }
  ::close(fd);
  return -1;
}

}  // namespace

int open_input_file(const std::string& path, const InputFileRules& rules, InputFile& problem, bool* is_stream) {
  struct stat info {};
  const int fd = open_classified(path, escape_control_bytes(path), rules, info, problem);
  if (fd >= 0 && is_stream) *is_stream = !S_ISREG(info.st_mode);
  return fd;
}

std::string_view special_file_kind(unsigned mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "a special file";
}

InputFile read_input_file(const std::string& path, const InputFileRules& rules) {
  const std::string shown = escape_control_bytes(path);
  struct stat info {};
  InputFile problem;
  const int fd = open_classified(path, shown, rules, info, problem);
  if (fd < 0) return problem;
  InputFile f;
  // One byte past max_bytes tells a pipe that is too long from one that fits exactly.
  const std::size_t limit = rules.max_bytes == SIZE_MAX ? SIZE_MAX : rules.max_bytes + 1;
  // A regular file's size is known: one allocation instead of doubling (a large file would
  // otherwise briefly hold its text twice while the string grows).
  if (S_ISREG(info.st_mode))
    f.text.reserve(std::min({static_cast<std::size_t>(info.st_size), rules.read_limit, limit}));
  const bool read_ok = read_all(fd, f.text, std::min(rules.read_limit, limit));
  const int read_errno = errno;
  ::close(fd);
  if (!read_ok) {
    return failed(InputFileProblem::kUnreadable, fmt::format("{}: cannot read: {}", shown, std::strerror(read_errno)));
  }
  if (f.text.size() > rules.max_bytes) return too_large(shown, 0, rules);
  if (f.text.empty() && !rules.allow_empty) {
    return failed(InputFileProblem::kEmpty, shown + ": file is empty" + expected_suffix(rules));
  }
  InputFile binary = binary_problem(path, f.text, rules);
  if (!binary.ok()) return binary;
  return f;
}

std::string read_input_file_or_throw(const std::string& path, const InputFileRules& rules) {
  InputFile f = read_input_file(path, rules);
  if (!f.ok()) throw InputFileError(f.problem, f.message);
  return std::move(f.text);
}

std::optional<std::string> input_directory_problem(const std::string& path, std::string_view expected) {
  const std::string shown = escape_control_bytes(path);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return shown + ": no such directory";
    return fmt::format("{}: cannot read: {}", shown, std::strerror(errno));
  }
  if (!S_ISDIR(info.st_mode)) return fmt::format("{}: not a directory (expected {})", shown, expected);
  return std::nullopt;
}

std::string escape_control_bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t bad = find_invalid_utf8(text.substr(i));
    const std::size_t end = bad == std::string_view::npos ? text.size() : i + bad;
    for (; i < end; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        out += fmt::format("\\x{:02x}", c);
      } else {
        out.push_back(static_cast<char>(c));
      }
    }
    if (i < text.size()) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i++]));
  }
  return out;
}

}  // namespace attractor
