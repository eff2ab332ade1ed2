#include "attractor/launch/graphviz.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "attractor/base/supervised_process.h"

extern char** environ;

namespace attractor {
namespace {

/// Writes all of `data` to `fd`, ignoring SIGPIPE-style failures (the reader's exit status tells).
void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

RenderResult DotProcessRenderer::render(const std::string& dot_text, const std::string& format,
                                        const std::string& output_path) {
  RenderResult result;
  int in_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("cannot create pipe: ") + std::strerror(errno);
    return result;
  }
  std::string type_flag = "-T" + format;
  SpawnSpec spawn;
  spawn.program = program_;
  spawn.argv = {program_, type_flag, "-o", output_path};
  for (char** e = environ; *e; ++e) spawn.env.emplace_back(*e);
  spawn.stdin_fd = in_pipe[0];
  spawn.stdout_fd = STDOUT_FILENO;
  spawn.stderr_fd = err_pipe[1];
  SupervisedProcess process;
  bool started = process.start(spawn);
  ::close(in_pipe[0]);
  ::close(err_pipe[1]);
  if (!started) {
    ::close(in_pipe[1]);
    ::close(err_pipe[0]);
    result.error = "cannot start `" + program_ + "`: " + process.error();
    return result;
  }
  auto old_pipe = std::signal(SIGPIPE, SIG_IGN);
  write_all(in_pipe[1], dot_text);
  ::close(in_pipe[1]);
  std::signal(SIGPIPE, old_pipe);
  std::string err = read_all(err_pipe[0]);
  ::close(err_pipe[0]);
  while (!process.wait_for(-1)) {
  }
  int status = process.wait_status();
  if (process.failure() != SpawnFailure::kNone) {
    int errnum = process.failure_errno();
    result.tool_missing = errnum == ENOENT;
    result.error = errnum == ENOENT ? "Graphviz `" + program_ +
                                          "` was not found on PATH; install graphviz "
                                          "(Debian: apt-get install graphviz) or render to .dot"
                                    : "cannot start `" + program_ + "`: " + process.error();
    return result;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    result.ok = true;
    return result;
  }
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
  result.error = "`" + program_ + " " + type_flag + "` failed" + (err.empty() ? "" : ": " + err);
  return result;
}

}  // namespace attractor
